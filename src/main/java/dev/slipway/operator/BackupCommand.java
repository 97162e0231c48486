package dev.slipway.operator;

import dev.slipway.backup.Backup;
import dev.slipway.backup.Manifest;
import dev.slipway.backup.Restore;
import dev.slipway.config.DatabaseAdminSettings;
import dev.slipway.config.StoreSettings;
import dev.slipway.core.Env;
import dev.slipway.databases.DatabaseDumps;
import dev.slipway.databases.DbAddress;
import dev.slipway.databases.DbKind;
import dev.slipway.secrets.SecretBox;
import dev.slipway.core.MicrosClock;
import dev.slipway.store.Database;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
                Optional<SecretBox> secrets = secrets(env, store.dataDir(env));
                if (secrets.isEmpty()) System.out.println("No secret key (no SLIPWAY_SECRET_KEY, no key file): the apps' databases are left out.");
                Backup.Summary s = Backup.write(db, store.externalUrl(env), store.dataDir(env),
                        secrets.map(k -> new DatabaseDumps(db.jdbi(), k)).orElse(null), file, MicrosClock.system());
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

    /** The key that decrypts the store's secrets: SLIPWAY_SECRET_KEY, else the data dir's key file; empty with neither. */
    static Optional<SecretBox> secrets(Env env, Path dataDir) throws IOException {
        Optional<String> key = env.text(StoreSettings.SECRET_KEY);
        if (key.isPresent()) return Optional.of(SecretBox.fromBase64(key.get()));
        return Files.isRegularFile(dataDir.resolve(SecretBox.KEY_FILE)) ? Optional.of(SecretBox.fromKeyFile(dataDir)) : Optional.empty();
    }

    /** Loads the apps' databases' dumps on the servers the restored store names, made again by the admins where gone. */
    private static List<String> loadDatabases(Env env, Path dataDir, String url, Path dumps, List<String> ids) throws IOException {
        SecretBox secrets = secrets(env, dataDir).orElseThrow(() -> new IOException(
                "the backup holds databases of apps, and their passwords need the secret key: set SLIPWAY_SECRET_KEY"));
        Map<DbKind, DbAddress> admins = new EnumMap<>(DbKind.class);
        env.text(DatabaseAdminSettings.POSTGRES_URL).ifPresent(u -> admins.put(DbKind.POSTGRES, DbAddress.parse(u)));
        env.text(DatabaseAdminSettings.MYSQL_URL).ifPresent(u -> admins.put(DbKind.MYSQL, DbAddress.parse(u)));
        try (Database db = Database.open(url != null ? url : Database.h2Url(dataDir), 2)) {
            DatabaseDumps dumper = new DatabaseDumps(db.jdbi(), secrets);
            List<String> done = new ArrayList<>();
            for (String id : ids) done.add(dumper.load(id, dumps.resolve(id + ".sql"), admins));
            return done;
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
            String url = store.externalUrl(env);
            try {
                Restore.Restored r = Restore.run(file, dataDir, url, (dumps, ids) -> loadDatabases(env, dataDir, url, dumps, ids));
                Manifest m = r.manifest();
                System.out.printf("Restored the %s store (schema %s, backed up at %s) and %d file(s) into %s.%n",
                        m.store(), m.schema(), m.createdAt(), m.entries().size() - 1, dataDir.toAbsolutePath());
                for (String line : r.databases()) System.out.println("The app database " + line + ".");
                if (!m.withKey()) System.out.println("The backup holds no secret key: start the server with the same SLIPWAY_SECRET_KEY.");
                return 0;
            } catch (IOException | RuntimeException e) {
                System.err.println("error: " + e.getMessage());
                return 1;
            }
        }
    }
}
