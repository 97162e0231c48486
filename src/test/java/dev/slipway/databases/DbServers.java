package dev.slipway.databases;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The machine's real PostgreSQL and MariaDB servers, as admin. Not reachable → the test fails (it
 * does not skip). {@code SLIPWAY_TEST_POSTGRES_ADMIN_URL} (else {@code SLIPWAY_TEST_POSTGRES_URL},
 * else the local server as postgres) and {@code SLIPWAY_TEST_MYSQL_ADMIN_URL} (else the local server
 * as root) override where.
 */
final class DbServers {
    private DbServers() {}

    static String postgresAdmin() {
        String url = env("SLIPWAY_TEST_POSTGRES_ADMIN_URL");
        if (url == null) url = env("SLIPWAY_TEST_POSTGRES_URL");
        return url != null ? url : "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres";
    }

    static String mysqlAdmin() {
        String url = env("SLIPWAY_TEST_MYSQL_ADMIN_URL");
        return url != null ? url : "jdbc:mariadb://127.0.0.1:3306/?user=root";
    }

    static String admin(DbKind kind) {
        return kind == DbKind.POSTGRES ? postgresAdmin() : mysqlAdmin();
    }

    static DbAddress adminAddress(DbKind kind) {
        return DbAddress.parse(admin(kind));
    }

    static Connection connect(DbKind kind) throws SQLException {
        return Connections.open(adminAddress(kind));
    }

    static void exec(DbKind kind, String... statements) {
        try (Connection c = connect(kind); var s = c.createStatement()) {
            for (String sql : statements) s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("admin statement on " + kind + " failed: " + e.getMessage(), e);
        }
    }

    static boolean databaseExists(DbKind kind, String name) {
        return count(kind, kind == DbKind.POSTGRES ? "SELECT COUNT(*) FROM pg_database WHERE datname = ?"
                : "SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = ?", name) > 0;
    }

    static boolean userExists(DbKind kind, String name) {
        return count(kind, kind == DbKind.POSTGRES ? "SELECT COUNT(*) FROM pg_roles WHERE rolname = ?"
                : "SELECT COUNT(*) FROM mysql.user WHERE user = ?", name) > 0;
    }

    /** Databases and users whose name starts with {@code prefix} (what a test may have left). */
    static List<String> leftovers(DbKind kind, String prefix) {
        List<String> out = new ArrayList<>();
        String[] queries = kind == DbKind.POSTGRES
                ? new String[]{"SELECT datname FROM pg_database WHERE datname LIKE ?", "SELECT rolname FROM pg_roles WHERE rolname LIKE ?"}
                : new String[]{"SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE ?", "SELECT user FROM mysql.user WHERE user LIKE ?"};
        try (Connection c = connect(kind)) {
            for (String q : queries) {
                try (var ps = c.prepareStatement(q)) {
                    ps.setString(1, prefix + "%");
                    try (var rs = ps.executeQuery()) {
                        while (rs.next()) out.add(rs.getString(1));
                    }
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return out;
    }

    /** Removes a Slipway-made database and user (test cleanup), whatever state they are in. */
    static void dropMade(DbKind kind, String name) {
        try {
            Provisioner.of(kind).drop(adminAddress(kind), name);
        } catch (SQLException e) {
            throw new IllegalStateException("cleanup of " + name + " failed: " + e.getMessage(), e);
        }
    }

    /** A unique lowercase name for what a test makes by hand. */
    static String unique(String prefix) {
        return prefix + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    }

    private static long count(DbKind kind, String sql, String name) {
        try (Connection c = connect(kind); var ps = c.prepareStatement(sql)) {
            ps.setString(1, name);
            try (var rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String env(String name) {
        String v = System.getenv(name);
        return v == null || v.isBlank() || v.startsWith("${") ? null : v; // "${...}": surefire passed an unset variable
    }
}
