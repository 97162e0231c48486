package dev.slipway.migrations;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

public enum MigrationStatus {
    PENDING, PROCESSING, COMPLETE, FAILED;

    /** The one table of allowed migration moves. */
    private static final Map<MigrationStatus, Set<MigrationStatus>> ALLOWED = new EnumMap<>(MigrationStatus.class);

    static {
        ALLOWED.put(PENDING, EnumSet.of(PROCESSING, FAILED));
        ALLOWED.put(PROCESSING, EnumSet.of(COMPLETE, FAILED));
        ALLOWED.put(COMPLETE, EnumSet.noneOf(MigrationStatus.class));
        ALLOWED.put(FAILED, EnumSet.noneOf(MigrationStatus.class));
    }

    public String label() { return name().toLowerCase(Locale.ROOT); }

    public boolean finished() { return this == COMPLETE || this == FAILED; }

    public static void check(MigrationStatus from, MigrationStatus to) {
        if (!ALLOWED.get(from).contains(to)) {
            throw new IllegalStateException("illegal migration transition " + from.label() + " → " + to.label());
        }
    }

    public static MigrationStatus parse(String s) {
        for (MigrationStatus v : values()) if (v.label().equals(s)) return v;
        throw new IllegalArgumentException("unknown migration status " + s);
    }
}
