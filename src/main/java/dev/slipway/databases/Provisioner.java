package dev.slipway.databases;

import java.sql.SQLException;

/**
 * Makes and removes a database and its own user on a provider's server, as the admin. Every step
 * checks first, so running {@link #ensure} again after a stop in the middle finishes the job
 * without duplicates, and {@link #drop} removes whatever exists.
 */
interface Provisioner {
    /** Called after each step; a test stops here to play a crash. */
    @FunctionalInterface
    interface Steps {
        void done(String step);

        Steps NONE = step -> { };
    }

    /** Creates (or completes) the user {@code name} with {@code password} and the database {@code name} it owns. */
    void ensure(DbAddress admin, String name, String password, Steps steps) throws SQLException;

    /** Removes the database {@code name} and the user {@code name}, if they exist. */
    void drop(DbAddress admin, String name) throws SQLException;

    static Provisioner of(DbKind kind) {
        return kind == DbKind.POSTGRES ? new PostgresProvisioner() : new MysqlProvisioner();
    }
}
