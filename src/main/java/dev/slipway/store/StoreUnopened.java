package dev.slipway.store;

import java.sql.SQLException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The store could not be connected to or brought up to date: one line for the operator, without the URL's user,
 * password or options (the embedded store's URL holds its password).
 */
public final class StoreUnopened extends RuntimeException {
    private static final Pattern NETWORK = Pattern.compile("^jdbc:(postgresql)://(?:[^/@?]*@)?([^/?]*)(/[^?;]*)?");

    StoreUnopened(String jdbcUrl, RuntimeException cause) {
        super("the store (" + describe(jdbcUrl) + ") could not be opened: " + reason(cause), cause);
    }

    /** Which store: the embedded one, or PostgreSQL's host, port and database. */
    static String describe(String jdbcUrl) {
        if (jdbcUrl.startsWith("jdbc:h2:")) return "the embedded H2 store";
        Matcher m = NETWORK.matcher(jdbcUrl);
        if (m.find()) return "PostgreSQL at " + m.group(2) + (m.group(3) == null ? "" : m.group(3));
        return "an unknown kind of store";
    }

    /** The driver's own words where there are some (the pool and the migrations wrap them), else the failure's. */
    private static String reason(RuntimeException e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException && t.getMessage() != null) return t.getMessage();
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
