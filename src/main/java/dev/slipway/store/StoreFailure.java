package dev.slipway.store;

import java.io.IOException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.util.Optional;
import java.util.Set;

/**
 * Tells a store that is away (PostgreSQL unreachable or restarting, the embedded store closed by an I/O error such as
 * a full disk) from a query that is wrong: the first is answered with a 503 to retry, and the server goes on, the
 * second is a bug.
 */
public final class StoreFailure {
    /**
     * H2's codes for a database that cannot be used now: closed (90098), closed at shutdown (90121), I/O errors
     * (90028, 90031), the file locked by another process (90020), no disk space (90100), a general error while
     * writing its file (50000 carries "No space left" in its message).
     */
    private static final Set<Integer> H2_UNAVAILABLE = Set.of(90098, 90121, 90028, 90031, 90020, 90100);
    /** PostgreSQL's SQLSTATEs of a server that is away: connection exceptions (08…), shutting down or starting (57P0…). */
    private static final Set<String> PG_UNAVAILABLE = Set.of("57P01", "57P02", "57P03", "53300");

    private StoreFailure() {}

    /** The store's failure behind {@code e}, when it says the store is away; empty for any other failure. */
    public static Optional<SQLException> unavailable(Throwable e) {
        SQLException below = null;
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException sql) {
                if (isUnavailable(sql)) return Optional.of(sql);
                if (below == null) below = sql;
            } else if (below != null && t instanceof IOException) {
                return Optional.of(below); // the store's own file or socket failed under it (a full disk, a lost link)
            }
        }
        return Optional.empty();
    }

    /**
     * Whether {@code e} is the pool's timeout while every connection was busy (load, not an outage): the request is
     * refused with a 503 to retry, the store is not taken for away.
     */
    public static boolean busy(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLTransientConnectionException c && c.getCause() == null) return true;
        }
        return false;
    }

    private static boolean isUnavailable(SQLException e) {
        // the pool's timeout says the store is away only when making a connection failed (its cause): without one,
        // every connection was busy, which is load, not an outage
        if (e instanceof SQLTransientConnectionException) return e.getCause() != null;
        if (e instanceof SQLNonTransientConnectionException) return true;
        String state = e.getSQLState();
        if (state != null && (state.startsWith("08") || PG_UNAVAILABLE.contains(state))) return true;
        if (H2_UNAVAILABLE.contains(e.getErrorCode())) return true;
        String message = e.getMessage();
        return message != null && (message.contains("No space left on device") || message.contains("Database is already closed")
                || message.contains("MVStoreException: Writing to") || message.contains("MVStoreException: Reading from"));
    }
}
