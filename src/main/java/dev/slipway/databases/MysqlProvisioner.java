package dev.slipway.databases;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * MySQL/MariaDB: a database, a user {@code 'name'@'%'} and all privileges on that database only.
 * User name and password are bound parameters; the database name is a checked, quoted identifier.
 */
final class MysqlProvisioner implements Provisioner {
    @Override
    public void ensure(DbAddress admin, String name, String password, Steps steps) throws SQLException {
        try (Connection c = Connections.open(admin)) {
            c.setAutoCommit(true);
            try (Statement s = c.createStatement()) {
                s.execute("CREATE DATABASE IF NOT EXISTS " + Identifiers.my(name)
                        + " CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci");
            }
            steps.done("database");
            try (PreparedStatement ps = c.prepareStatement("CREATE USER IF NOT EXISTS ?@'%' IDENTIFIED BY ?")) {
                ps.setString(1, Identifiers.checked(name));
                ps.setString(2, password);
                ps.execute();
            }
            // again on every run: the user may exist from a run that stopped before its password was final
            try (PreparedStatement ps = c.prepareStatement("ALTER USER ?@'%' IDENTIFIED BY ?")) {
                ps.setString(1, name);
                ps.setString(2, password);
                ps.execute();
            }
            steps.done("user");
            try (PreparedStatement ps = c.prepareStatement("GRANT ALL PRIVILEGES ON " + Identifiers.my(name) + ".* TO ?@'%'")) {
                ps.setString(1, name);
                ps.execute();
            }
            steps.done("grants");
        }
    }

    @Override
    public void drop(DbAddress admin, String name) throws SQLException {
        try (Connection c = Connections.open(admin)) {
            c.setAutoCommit(true);
            try (Statement s = c.createStatement()) {
                s.execute("DROP DATABASE IF EXISTS " + Identifiers.my(name));
            }
            try (PreparedStatement ps = c.prepareStatement("DROP USER IF EXISTS ?@'%'")) {
                ps.setString(1, Identifiers.checked(name));
                ps.execute();
            }
        }
    }
}
