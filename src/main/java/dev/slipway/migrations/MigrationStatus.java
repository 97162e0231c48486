package dev.slipway.migrations;

import dev.slipway.store.StateMachine;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

public enum MigrationStatus {
    PENDING, PROCESSING, COMPLETE, FAILED;

    /** The one table of allowed migration moves. */
    public static final StateMachine<MigrationStatus> MACHINE = StateMachine
            .builder(MigrationStatus.class, "migration", MigrationStatus::label)
            .from(PENDING, PROCESSING, FAILED)
            .from(PROCESSING, COMPLETE, FAILED)
            .from(COMPLETE)
            .from(FAILED)
            .build();

    public String label() { return name().toLowerCase(Locale.ROOT); }

    public boolean finished() { return this == COMPLETE || this == FAILED; }

    /** Not finished yet: its upload is still needed. */
    public static Set<MigrationStatus> active() { return EnumSet.of(PENDING, PROCESSING); }

    public static MigrationStatus parse(String s) {
        for (MigrationStatus v : values()) if (v.label().equals(s)) return v;
        throw new IllegalArgumentException("unknown migration status " + s);
    }
}
