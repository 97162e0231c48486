package dev.slipway.backup;

import dev.slipway.secrets.SecretBox;

import java.time.Instant;
import java.util.List;

/**
 * What a backup holds, written as its last entry: every other entry with its size and SHA-256, so that a restore
 * checks the whole file before it writes anything.
 *
 * @param format   the layout of the file; a restore refuses one it does not know
 * @param store    {@code h2} or {@code postgres}: which store dump is in it
 * @param schema   the store's schema version when it was made (Flyway's)
 * @param dataDir  the data dir's absolute path: the store names builds by their path, so a restore goes there
 */
public record Manifest(int format, String store, String schema, Instant createdAt, String dataDir, List<Entry> entries) {
    public static final int FORMAT = 1;
    public static final String NAME = "slipway-backup.json";

    public record Entry(String name, long size, String sha256) {}

    /** Whether the data dir's secret key is in it (not when the key came from {@code SLIPWAY_SECRET_KEY}). */
    public boolean withKey() {
        return entries.stream().anyMatch(e -> e.name().equals(Layout.DATA + SecretBox.KEY_FILE));
    }
}
