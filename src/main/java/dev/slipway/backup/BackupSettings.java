package dev.slipway.backup;

import dev.slipway.core.Env;
import dev.slipway.core.Setting;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Scheduled backups: off without a folder.
 *
 * @param dir   where they go; null: none are made
 * @param every how often
 * @param keep  how many are kept
 */
public record BackupSettings(Path dir, Duration every, int keep) {
    public static final Setting DIR = Setting.env("SLIPWAY_BACKUP_DIR", "none (no scheduled backups)",
            "a folder for scheduled backups (`slipway-<UTC time>.tar.gz`, what `./slipway backup` writes); the state of the "
                    + "last one, and the error of a failed one, are in `/readyz` and the log ([Backups](#backups))");
    public static final Setting EVERY = Setting.env("SLIPWAY_BACKUP_EVERY", "`PT24H`",
            "how often a scheduled backup is made (seconds, `200ms` or ISO-8601); the first one as soon as the newest in the "
                    + "folder is that old");
    public static final Setting KEEP = Setting.env("SLIPWAY_BACKUP_KEEP", "`7`",
            "how many scheduled backups are kept; older ones in the folder are deleted");
    public static final Duration DEFAULT_EVERY = Duration.ofHours(24);
    public static final int DEFAULT_KEEP = 7;
    public static final BackupSettings OFF = new BackupSettings(null, DEFAULT_EVERY, DEFAULT_KEEP);

    public BackupSettings {
        if (every.compareTo(Duration.ofSeconds(1)) < 0) throw new IllegalArgumentException(EVERY.variable() + " must be at least 1 s");
        if (keep < 1) throw new IllegalArgumentException(KEEP.variable() + " must be at least 1");
    }

    public static BackupSettings fromEnv(Env env) {
        return new BackupSettings(env.text(DIR).map(Path::of).orElse(null), env.duration(EVERY, DEFAULT_EVERY),
                env.integer(KEEP, 1, 10_000, DEFAULT_KEEP));
    }

    public boolean enabled() {
        return dir != null;
    }
}
