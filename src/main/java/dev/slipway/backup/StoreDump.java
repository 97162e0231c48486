package dev.slipway.backup;

import dev.slipway.core.ExternalTool;
import dev.slipway.store.Database;
import dev.slipway.store.Dialect;
import org.postgresql.Driver;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * The store's part of a backup. H2 makes a consistent copy of its file while the server writes ({@code BACKUP TO});
 * PostgreSQL's is {@code pg_dump}'s SQL, one snapshot, loaded back with {@code psql} in one transaction.
 */
final class StoreDump {
    private StoreDump() {}

    /** Dumps the store into {@code file}; returns the dump's name in the backup. */
    static String dump(Database db, String jdbcUrl, Path file) throws IOException {
        if (db.dialect() == Dialect.H2) {
            String path = file.toAbsolutePath().toString();
            if (path.contains("'")) throw new IOException("the backup's folder has a quote in its path: " + path);
            db.jdbi().useHandle(h -> h.execute("BACKUP TO '" + path + "'"));
            return Layout.H2_DUMP;
        }
        Properties p = connection(jdbcUrl);
        run(List.of("pg_dump", "--no-owner", "--no-privileges", "--format=plain", "--file=" + file.toAbsolutePath()), p);
        return Layout.POSTGRES_DUMP;
    }

    /** The newest schema version the store's migrations reached. */
    static String schema(Database db) {
        return db.jdbi().withHandle(h -> h.createQuery(
                "SELECT version FROM flyway_schema_history WHERE success ORDER BY installed_rank DESC LIMIT 1")
                .mapTo(String.class).findOne().orElse("none"));
    }

    /** Puts H2's copy of its file into the data dir. */
    static void loadH2(Path dump, Path dataDir) throws IOException {
        try (ZipInputStream zip = new ZipInputStream(Files.newInputStream(dump))) {
            for (ZipEntry e = zip.getNextEntry(); e != null; e = zip.getNextEntry()) {
                String name = e.getName();
                if (e.isDirectory() || name.contains("/") || name.contains("\\") || !name.endsWith(".mv.db")) {
                    throw new IOException("the store's copy holds an unexpected file: " + name);
                }
                Files.copy(zip, dataDir.resolve(name), StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    /** Loads pg_dump's SQL into the empty database of {@code jdbcUrl}. */
    static void loadPostgres(Path dump, String jdbcUrl) throws IOException {
        try (var c = java.sql.DriverManager.getConnection(jdbcUrl); var s = c.createStatement();
             var r = s.executeQuery("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'public'")) {
            r.next();
            if (r.getInt(1) > 0) throw new IOException("the database of --database-url is not empty: restore into a new database");
        } catch (java.sql.SQLException e) {
            throw new IOException("cannot reach the database of --database-url: " + e.getMessage(), e);
        }
        run(List.of("psql", "--quiet", "--no-psqlrc", "-v", "ON_ERROR_STOP=1", "--single-transaction",
                "--file=" + dump.toAbsolutePath()), connection(jdbcUrl));
    }

    /** libpq's settings of a JDBC URL, for pg_dump and psql (the password goes in their environment, not their arguments). */
    private static Properties connection(String jdbcUrl) throws IOException {
        Properties p = Driver.parseURL(jdbcUrl, null);
        if (p == null) throw new IOException("not a PostgreSQL JDBC URL");
        return p;
    }

    private static void run(List<String> command, Properties p) throws IOException {
        Map<String, String> env = new HashMap<>();
        env.put("PGHOST", p.getProperty("PGHOST", "localhost"));
        env.put("PGPORT", p.getProperty("PGPORT", "5432"));
        env.put("PGDATABASE", p.getProperty("PGDBNAME", ""));
        if (p.getProperty("user") != null) env.put("PGUSER", p.getProperty("user"));
        if (p.getProperty("password") != null) env.put("PGPASSWORD", p.getProperty("password"));
        ExternalTool.run(command, env, null, "apt-get install postgresql-client");
    }
}
