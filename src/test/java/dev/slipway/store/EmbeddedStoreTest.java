package dev.slipway.store;

import java.net.ConnectException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The embedded store answers only the server's user: loopback only, a password only it can read, a 700 data dir. */
class EmbeddedStoreTest {
    @TempDir
    Path tmp;

    @Test
    void aFreshDataDirIsPrivateAndTheStoreNeedsItsPassword() throws Exception {
        Path dir = tmp.resolve("data");
        try (Database db = Database.open(Database.h2Url(dir), 2)) {
            db.jdbi().useHandle(h -> h.execute("select 1"));
        }
        assertThat(mode(dir)).isEqualTo("rwx------");
        assertThat(mode(dir.resolve(EmbeddedStore.PASSWORD_FILE))).isEqualTo("rw-------");
        String password = Files.readString(dir.resolve(EmbeddedStore.PASSWORD_FILE));
        assertThat(password).hasSizeGreaterThanOrEqualTo(32);
        assertThat(Database.h2Url(dir)).contains(password); // stable across opens

        String withoutPassword = Database.h2Url(dir).replaceAll(";PASSWORD=[^;]*", "");
        assertThatThrownBy(() -> DriverManager.getConnection(withoutPassword, "", "").close())
                .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getErrorCode()).isEqualTo(28000));
        assertThatThrownBy(() -> DriverManager.getConnection(withoutPassword + ";PASSWORD=guess").close())
                .isInstanceOf(SQLException.class);
    }

    @Test
    void autoServerListensOnLoopbackOnlyAndRefusesAKeylessPeer() throws Exception {
        Path dir = tmp.resolve("data");
        try (Database db = Database.open(Database.h2Url(dir), 2)) {
            db.jdbi().useHandle(h -> h.execute("select 1"));
            String lock = Files.readString(dir.resolve("slipway.lock.db"));
            int port = Integer.parseInt(lock.replaceAll("(?s).*server=[^\\n]*\\\\:(\\d+).*", "$1"));

            try (Socket loopback = new Socket()) {
                loopback.connect(new InetSocketAddress("127.0.0.1", port), 2000); // it is there
            }
            List<InetAddress> others = NetworkInterface.networkInterfaces()
                    .flatMap(NetworkInterface::inetAddresses)
                    .filter(a -> a instanceof Inet4Address && !a.isLoopbackAddress()).toList();
            assertThat(others).as("a non-loopback address to try from").isNotEmpty();
            for (InetAddress other : others) {
                try (Socket s = new Socket()) {
                    assertThatThrownBy(() -> s.connect(new InetSocketAddress(other, port), 2000))
                            .as("AUTO_SERVER on " + other.getHostAddress()).isInstanceOf(ConnectException.class);
                }
            }
            // a peer on loopback that knows the port but not the password gets nothing
            String viaTcp = "jdbc:h2:tcp://127.0.0.1:" + port + "/" + dir.toAbsolutePath().resolve("slipway");
            Properties noPassword = new Properties();
            noPassword.setProperty("user", "");
            noPassword.setProperty("password", "");
            assertThatThrownBy(() -> DriverManager.getConnection(viaTcp, noPassword).close()).isInstanceOf(SQLException.class);
        }
    }

    @Test
    void aStoreMadeWithoutAPasswordGetsOneAndKeepsItsData() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("old"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path key = Files.writeString(dir.resolve("secret.key"), "k");
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r--r--"));
        String old = "jdbc:h2:file:" + dir.toAbsolutePath().resolve("slipway") + ";AUTO_SERVER=TRUE;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE";
        try (Database before = Database.open(old, 2)) { // the schema of today, without a password
            before.jdbi().useHandle(h -> {
                h.execute("create table kept(v varchar)");
                h.execute("insert into kept values ('before the upgrade')");
            });
        }

        try (Database db = Database.open(Database.h2Url(dir), 2)) {
            String kept = db.jdbi().withHandle(h -> h.createQuery("select v from kept").mapTo(String.class).one());
            assertThat(kept).isEqualTo("before the upgrade");
        }
        assertThatThrownBy(() -> DriverManager.getConnection(old, "", "").close()).isInstanceOf(SQLException.class);
        assertThat(mode(dir)).isEqualTo("rwx------");
        assertThat(mode(key)).isEqualTo("rw-------");
    }

    private static String mode(Path p) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }
}
