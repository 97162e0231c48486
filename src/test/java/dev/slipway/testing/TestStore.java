package dev.slipway.testing;

import dev.slipway.store.Database;
import dev.slipway.store.Dialect;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A fresh, empty store of the current schema for one test class: an H2 file in a temp dir, or a uniquely named
 * PostgreSQL database created on the server of {@code SLIPWAY_TEST_POSTGRES_URL} and dropped by {@link #close()};
 * each a copy of a template migrated once ({@link StoreTemplates}).
 */
public final class TestStore implements AutoCloseable {
    public static final String POSTGRES_ENV = "SLIPWAY_TEST_POSTGRES_URL";

    private final Dialect kind;
    private final Path dataDir;
    private final String jdbcUrl;
    private final String dropName;
    private final String secretKey = randomKey();

    private TestStore(Dialect kind, Path dataDir, String jdbcUrl, String dropName) {
        this.kind = kind;
        this.dataDir = dataDir;
        this.jdbcUrl = jdbcUrl;
        this.dropName = dropName;
    }

    /** H2 always; PostgreSQL too when {@code SLIPWAY_TEST_POSTGRES_URL} is set. */
    public static List<Dialect> kinds() {
        List<Dialect> kinds = new ArrayList<>(List.of(Dialect.H2));
        String pg = System.getenv(POSTGRES_ENV);
        if (pg != null && !pg.isBlank()) kinds.add(Dialect.POSTGRES);
        return kinds;
    }

    public static TestStore create(Dialect kind) {
        return create(kind, Path.of(System.getProperty("java.io.tmpdir")));
    }

    /** As above, its data dir in {@code parent} (a small filesystem of the test's own). */
    public static TestStore create(Dialect kind, Path parent) {
        try {
            Path dir = Files.createTempDirectory(parent, "slipway-test-");
            if (kind == Dialect.H2) {
                StoreTemplates.copyH2(dir);
                return new TestStore(kind, dir, Database.h2Url(dir), null);
            }
            String admin = System.getenv(POSTGRES_ENV);
            if (admin == null || admin.isBlank()) throw new IllegalStateException(POSTGRES_ENV + " is not set");
            String name = "slipway_t_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
            StoreTemplates.createPostgres(admin, name);
            return new TestStore(kind, dir, withDatabase(admin, name), name);
        } catch (Exception e) {
            throw new IllegalStateException("cannot create a " + kind + " test store: " + e.getMessage(), e);
        }
    }

    public static String withDatabase(String url, String database) {
        Matcher m = Pattern.compile("^(jdbc:postgresql://[^/?]+)(/[^?]*)?(\\?.*)?$").matcher(url);
        if (!m.matches()) throw new IllegalArgumentException("unexpected PostgreSQL URL " + url);
        return m.group(1) + "/" + database + (m.group(3) == null ? "" : m.group(3));
    }

    private static String randomKey() {
        byte[] k = new byte[32];
        new SecureRandom().nextBytes(k);
        return Base64.getEncoder().encodeToString(k);
    }

    /** The secret key every server on this store shares (base64, 32 bytes). */
    public String secretKey() { return secretKey; }

    public Dialect kind() { return kind; }
    public Path dataDir() { return dataDir; }
    public String jdbcUrl() { return jdbcUrl; }

    @Override
    public void close() {
        if (dropName != null) {
            try (var c = DriverManager.getConnection(System.getenv(POSTGRES_ENV)); var s = c.createStatement()) {
                s.execute("DROP DATABASE IF EXISTS " + dropName + " WITH (FORCE)");
            } catch (Exception e) {
                throw new IllegalStateException("cannot drop test database " + dropName, e);
            }
        }
        deleteTree(dataDir);
    }

    public static void deleteTree(Path dir) {
        try (var walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // best effort: a temp dir
        }
    }
}
