package dev.slipway.operator;

import dev.slipway.backup.Backup;
import dev.slipway.backup.Manifest;
import dev.slipway.backup.Restore;
import dev.slipway.core.Env;
import dev.slipway.core.MicrosClock;
import dev.slipway.store.Database;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code slipway backup FILE} and {@code slipway restore FILE}: the store and the data dir's kept parts. */
public final class BackupCommand {
    private BackupCommand() {}

    @Command(name = "backup", mixinStandardHelpOptions = true,
            description = "Write a backup of the store and of the data dir's keys, builds and uploads to FILE (a gzipped "
                    + "tar, mode 600: it holds the keys) while the server runs. PostgreSQL stores need pg_dump.")
    public static final class Make implements Callable<Integer> {
        @Mixin StoreOptions store;
        @Parameters(index = "0", paramLabel = "FILE", description = "Where to write the backup") Path file;

        @Override
        public Integer call() {
            Env env = Env.system();
            try (Database db = store.open(2)) {
                Backup.Summary s = Backup.write(db, store.externalUrl(env), store.dataDir(env), file, MicrosClock.system());
                Manifest m = s.manifest();
                System.out.printf(Locale.ROOT, "Backed up the %s store (schema %s) and %d file(s) of the data dir to %s (%.1f MB).%n",
                        m.store(), m.schema(), m.entries().size() - 1, file.toAbsolutePath(), s.bytes() / 1e6);
                System.out.println(m.withKey()
                        ? "It holds the secret key: keep it where only operators can read it."
                        : "It does not hold the secret key (SLIPWAY_SECRET_KEY): a restore needs the same key to read the "
                        + "stored secrets.");
                return 0;
            } catch (IOException | RuntimeException e) {
                System.err.println("error: the backup failed: " + e.getMessage());
                return 1;
            }
        }
    }

    @Command(name = "restore", mixinStandardHelpOptions = true,
            description = "Restore a backup into an empty data dir (and, for a PostgreSQL backup, the empty database of "
                    + "--database-url), then start the server on them. The file is checked whole before anything is written.")
    public static final class Load implements Callable<Integer> {
        @Mixin StoreOptions store;
        @Parameters(index = "0", paramLabel = "FILE", description = "The backup to restore") Path file;

        @Override
        public Integer call() {
            Env env = Env.system();
            Path dataDir = store.dataDir(env);
            try {
                Manifest m = Restore.run(file, dataDir, store.externalUrl(env));
                System.out.printf("Restored the %s store (schema %s, backed up at %s) and %d file(s) into %s.%n",
                        m.store(), m.schema(), m.createdAt(), m.entries().size() - 1, dataDir.toAbsolutePath());
                if (!m.withKey()) System.out.println("The backup holds no secret key: start the server with the same SLIPWAY_SECRET_KEY.");
                return 0;
            } catch (IOException | RuntimeException e) {
                System.err.println("error: " + e.getMessage());
                return 1;
            }
        }
    }
}
