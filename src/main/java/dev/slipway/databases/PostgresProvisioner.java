package dev.slipway.databases;

import org.postgresql.PGConnection;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * PostgreSQL: a LOGIN role (its password set as a SCRAM verifier computed here, so the clear password
 * never travels in a statement), a database it owns, and CONNECT taken away from everyone else.
 */
final class PostgresProvisioner implements Provisioner {
    private static final String DUPLICATE_OBJECT = "42710";
    private static final String DUPLICATE_DATABASE = "42P04";

    @Override
    public void ensure(DbAddress admin, String name, String password, Steps steps) throws SQLException {
        try (Connection c = Connections.open(admin)) {
            c.setAutoCommit(true);
            if (!exists(c, "SELECT 1 FROM pg_roles WHERE rolname = ?", name)) {
                try (Statement s = c.createStatement()) {
                    s.execute("CREATE ROLE " + Identifiers.pg(name) + " LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE");
                } catch (SQLException e) {
                    if (!DUPLICATE_OBJECT.equals(e.getSQLState())) throw e; // made by a run that raced this one
                }
            }
            // again on every run: a resumed run may have stopped between creating the role and this
            c.unwrap(PGConnection.class).alterUserPassword(name, password.toCharArray(), "scram-sha-256");
            steps.done("role");
            if (!exists(c, "SELECT 1 FROM pg_database WHERE datname = ?", name)) {
                try (Statement s = c.createStatement()) {
                    s.execute("CREATE DATABASE " + Identifiers.pg(name) + " OWNER " + Identifiers.pg(name));
                } catch (SQLException e) {
                    if (!DUPLICATE_DATABASE.equals(e.getSQLState())) throw e;
                }
            }
            steps.done("database");
            try (Statement s = c.createStatement()) {
                s.execute("REVOKE ALL ON DATABASE " + Identifiers.pg(name) + " FROM PUBLIC");
                s.execute("GRANT ALL ON DATABASE " + Identifiers.pg(name) + " TO " + Identifiers.pg(name));
            }
            steps.done("grants");
        }
    }

    @Override
    public void drop(DbAddress admin, String name) throws SQLException {
        try (Connection c = Connections.open(admin); Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            s.execute("DROP DATABASE IF EXISTS " + Identifiers.pg(name) + " WITH (FORCE)");
            s.execute("DROP ROLE IF EXISTS " + Identifiers.pg(name));
        }
    }

    private static boolean exists(Connection c, String sql, String name) throws SQLException {
        try (var ps = c.prepareStatement(sql)) {
            ps.setString(1, name);
            try (var rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }
}
