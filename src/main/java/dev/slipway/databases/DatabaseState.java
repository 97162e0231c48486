package dev.slipway.databases;

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

    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    static DatabaseState parse(String label) {
        return valueOf(label.toUpperCase(java.util.Locale.ROOT));
    }
}
