package dev.slipway.store;

import org.jdbi.v3.core.Handle;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * The store's kind, and everything that differs between the embedded H2 store and PostgreSQL, asked here and
 * nowhere else.
 */
public enum Dialect {
    H2 {
        @Override public String lockForCounting() { return "FOR UPDATE"; }
        @Override public boolean shared() { return false; }
    },
    POSTGRES {
        /**
         * Not {@code FOR UPDATE}: that also waits for the key share any insert referring to the row takes, and
         * would deadlock with a transaction that inserts such a row and then waits for a row this one holds.
         */
        @Override public String lockForCounting() { return "FOR NO KEY UPDATE"; }
        @Override public boolean shared() { return true; }
    };

    /**
     * The row lock a transaction takes on a parent row (an account) so that what it then counts of the row's
     * children cannot change under it, while inserts of children by others still proceed.
     */
    public abstract String lockForCounting();

    /**
     * Whether several servers share the store: it notifies them of committed changes (LISTEN/NOTIFY) and holds the
     * counts they share (rate limits). The embedded store has a single server.
     */
    public abstract boolean shared();

    /** By the JDBC URL: {@code jdbc:postgresql:} or {@code jdbc:h2:}, anything else refused. */
    public static Dialect of(String jdbcUrl) {
        if (jdbcUrl.startsWith("jdbc:postgresql:")) return POSTGRES;
        if (jdbcUrl.startsWith("jdbc:h2:")) return H2;
        throw new IllegalArgumentException("SLIPWAY_DATABASE_URL must be a jdbc:postgresql: or jdbc:h2: URL");
    }

    /** By the connection's database (the drivers answer from constants, without a round trip). */
    public static Dialect of(Connection c) {
        try {
            return c.getMetaData().getDatabaseProductName().equalsIgnoreCase("PostgreSQL") ? POSTGRES : H2;
        } catch (SQLException e) {
            throw new IllegalStateException("cannot tell which database the store is", e);
        }
    }

    public static Dialect of(Handle h) {
        return of(h.getConnection());
    }
}
