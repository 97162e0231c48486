package dev.slipway.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Base64;

/**
 * The embedded H2 store in a data dir, locked to the server's user.
 *
 * <p>AUTO_SERVER stays, so that operator commands ({@code slipway accounts …}) can share the file with a
 * running server. Its TCP server listens on loopback only, and the database has a random password kept in
 * {@code store.password} (mode 600) in a data dir of mode 700: an app or a build, which never runs as the
 * server's user, can neither read the password nor the lock file's key.
 */
public final class EmbeddedStore {
    public static final String PASSWORD_FILE = "store.password";
    private static final String DB_NAME = "slipway";

    static {
        // H2 reads this once, when its classes load; AUTO_SERVER otherwise listens on every interface.
        if (System.getProperty("h2.bindAddress") == null) System.setProperty("h2.bindAddress", "127.0.0.1");
    }

    private EmbeddedStore() {}

    /**
     * The JDBC URL of the store in {@code dataDir}, password included; prepares the data dir first. A store
     * made before passwords existed is given one here, once.
     */
    public static String url(Path dataDir) {
        Path dir = dataDir.toAbsolutePath();
        // WRITE_DELAY=0 writes every commit at once: H2's default of a second's delay loses the last commits to a kill -9
        String base = "jdbc:h2:file:" + dir.resolve(DB_NAME)
                + ";AUTO_SERVER=TRUE;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH;WRITE_DELAY=0";
        try {
            DataDir.prepare(dir);
            Path file = dir.resolve(PASSWORD_FILE);
            boolean existingStore = Files.exists(dir.resolve(DB_NAME + ".mv.db"));
            if (!Files.exists(file)) {
                String fresh = fresh();
                if (create(file, fresh) && existingStore) setPassword(base, fresh);
            }
            return base + ";PASSWORD=" + Files.readString(file).trim();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the embedded store in " + dir + ": " + e.getMessage(), e);
        }
    }

    private static boolean create(Path file, String password) throws IOException {
        try {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(file, password, StandardOpenOption.TRUNCATE_EXISTING);
            return true;
        } catch (FileAlreadyExistsException raced) {
            return false;
        }
    }

    /** Upgrades a store made without a password (user "", password ""). */
    private static void setPassword(String base, String password) {
        try (var c = DriverManager.getConnection(base, "", ""); var s = c.createStatement()) {
            s.execute("ALTER USER \"\" SET PASSWORD '" + password + "'");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot set the embedded store's password: " + e.getMessage(), e);
        }
    }

    private static String fresh() {
        byte[] bytes = new byte[24];
        new SecureRandom().nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes); // no quote or ';' to escape
    }
}
