package dev.slipway.databases;

import dev.slipway.store.StateMachine;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/** Where a project's database stands. */
public enum DatabaseState {
    /** Recorded; the pipeline has not finished making (create) or checking (connect) it. */
    PROVISIONING,
    /** Made or checked: deployments get its {@code DATABASE_URL}. */
    READY,
    /** Its migration failed and removing it failed too; housekeeping tries again. */
    FAILED,
    /** Its migration failed: removed (create) or forgotten (connect); the secret is wiped. */
    DROPPED;

    /** The one table of allowed database moves. */
    public static final StateMachine<DatabaseState> MACHINE = StateMachine
            .builder(DatabaseState.class, "database", DatabaseState::label)
            .from(PROVISIONING, READY, FAILED, DROPPED)
            .from(READY, FAILED, DROPPED)
            .from(FAILED, DROPPED)
            .from(DROPPED)
            .build();

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Still holds something a failed migration must remove or forget. */
    public static Set<DatabaseState> held() { return EnumSet.of(PROVISIONING, READY, FAILED); }

    /** Usable: deployments get its {@code DATABASE_URL}. */
    public boolean usable() { return this == PROVISIONING || this == READY; }

    public static DatabaseState parse(String label) {
        return valueOf(label.toUpperCase(Locale.ROOT));
    }
}
