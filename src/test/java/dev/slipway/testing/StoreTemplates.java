package dev.slipway.testing;

import dev.slipway.store.Database;
import dev.slipway.store.EmbeddedStore;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;

/**
 * A store of each kind migrated once per test JVM, which every test store starts as a copy of: running the
 * schema's migrations takes a second or two a store, a copy a few milliseconds (H2: the file and its password;
 * PostgreSQL: {@code CREATE DATABASE … TEMPLATE}). The copy still opens through Flyway, which finds nothing to
 * do. The templates go when the JVM exits.
 */
final class StoreTemplates {
    private static final String H2_FILE = "slipway.mv.db";
    private static Path h2;
    private static String postgres;

    private StoreTemplates() {}

    /** Makes {@code dataDir} an embedded store of the current schema, empty. */
    static synchronized void copyH2(Path dataDir) throws IOException {
        if (h2 == null) {
            Path dir = Files.createTempDirectory("slipway-template-");
            try (Database ignored = Database.open(Database.h2Url(dir), 2)) {
                // migrated; closing it writes the file whole
            }
            h2 = dir;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> TestStore.deleteTree(dir)));
        }
        Files.copy(h2.resolve(H2_FILE), dataDir.resolve(H2_FILE), StandardCopyOption.COPY_ATTRIBUTES);
        Files.copy(h2.resolve(EmbeddedStore.PASSWORD_FILE), dataDir.resolve(EmbeddedStore.PASSWORD_FILE),
                StandardCopyOption.COPY_ATTRIBUTES);
    }

    /** Creates the database {@code name} on the admin URL's server as a copy of the migrated template. */
    static void createPostgres(String adminUrl, String name) throws SQLException {
        String template = postgresTemplate(adminUrl);
        try (var c = DriverManager.getConnection(adminUrl); var s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name + " TEMPLATE " + template);
        }
    }

    private static synchronized String postgresTemplate(String adminUrl) throws SQLException {
        if (postgres != null) return postgres;
        String name = "slipway_tpl_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        try (var c = DriverManager.getConnection(adminUrl); var s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        }
        try (Database ignored = Database.open(TestStore.withDatabase(adminUrl, name), 2)) {
            // migrated
        }
        // a copy needs the template free of sessions, and the server ends a closed connection's backend a moment later
        try (var c = DriverManager.getConnection(adminUrl)) {
            Await.until(Duration.ofSeconds(30), "the template " + name + " to have no session", () -> {
                try (var q = c.prepareStatement("SELECT COUNT(*) FROM pg_stat_activity WHERE datname = ?")) {
                    q.setString(1, name);
                    try (var rs = q.executeQuery()) {
                        return rs.next() && rs.getInt(1) == 0;
                    }
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
        }
        postgres = name;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try (var c = DriverManager.getConnection(adminUrl); var s = c.createStatement()) {
                s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
            } catch (SQLException e) {
                System.err.println("could not drop the test template " + name + ": " + e.getMessage());
            }
        }));
        return name;
    }
}
