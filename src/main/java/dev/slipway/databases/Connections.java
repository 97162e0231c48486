package dev.slipway.databases;

import java.io.EOFException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/**
 * Opens connections to database servers (admin or app) with short timeouts, and says plainly why one
 * could not be opened — never with the password in the message.
 */
final class Connections {
    static final int CONNECT_TIMEOUT_SECONDS = 5;

    private Connections() {}

    /** A connection as the address's user with its password; the caller closes it. */
    static Connection open(DbAddress a) throws SQLException {
        return open(a, properties(a));
    }

    /**
     * As {@link #open(DbAddress)}, to one of the addresses {@code a}'s host was resolved to and checked at: the driver
     * looks nothing up ({@link PinnedSockets}).
     */
    static Connection open(DbAddress a, List<InetAddress> checked) throws SQLException {
        Properties props = properties(a);
        PinnedSockets.pin(props, checked, a.port());
        return open(a, props);
    }

    private static Properties properties(DbAddress a) {
        Properties props = new Properties();
        if (a.user() != null) props.setProperty("user", a.user());
        props.setProperty("password", a.password() == null ? "" : a.password());
        if (a.kind() == DbKind.POSTGRES) {
            props.setProperty("connectTimeout", String.valueOf(CONNECT_TIMEOUT_SECONDS));
            props.setProperty("loginTimeout", String.valueOf(CONNECT_TIMEOUT_SECONDS));
            props.setProperty("socketTimeout", "60");
            props.setProperty("ApplicationName", "slipway");
        } else {
            props.setProperty("connectTimeout", String.valueOf(CONNECT_TIMEOUT_SECONDS * 1000));
            props.setProperty("socketTimeout", "60000");
        }
        a.params().forEach(props::setProperty);
        return props;
    }

    private static Connection open(DbAddress a, Properties props) throws SQLException {
        String url = a.jdbcUrl();
        if (a.kind() == DbKind.POSTGRES && a.database() == null) url = a.with("postgres", a.user(), a.password()).jdbcUrl();
        return DriverManager.getConnection(url, props);
    }

    /**
     * Why connecting to {@code a} failed, in plain words: unreachable, refused, authentication failed,
     * no such database. Built from the failure's kind, never from the driver's text alone, so no
     * credential can slip through.
     */
    static String describe(SQLException e, DbAddress a) {
        String at = a.host() + ":" + a.port();
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof UnknownHostException) return "the host " + a.host() + " cannot be resolved (unknown host)";
            if (t instanceof SocketTimeoutException) {
                return at + " is unreachable: no answer within " + CONNECT_TIMEOUT_SECONDS + " s";
            }
            if (t instanceof NoRouteToHostException) return at + " is unreachable (no route to host)";
            if (t instanceof ConnectException ce) {
                String m = ce.getMessage() == null ? "" : ce.getMessage().toLowerCase(Locale.ROOT);
                if (m.contains("timed out")) return at + " is unreachable: no answer within " + CONNECT_TIMEOUT_SECONDS + " s";
                return "connection refused by " + at + " (is a database server listening there?)";
            }
        }
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        int code = e.getErrorCode();
        String user = a.user() == null ? "(none)" : a.user();
        String db = a.database() == null ? "(none)" : a.database();
        if (a.kind() == DbKind.POSTGRES) {
            if (state.equals("28P01")) return "authentication failed for user " + user + " (wrong password or service_key)";
            if (state.equals("28000")) {
                String m = e.getMessage() == null ? "" : e.getMessage();
                if (m.contains("does not exist")) return "authentication failed: the user " + user + " does not exist";
                if (m.contains("pg_hba")) return "the server does not accept connections for user " + user + " from this host (pg_hba.conf)";
                return "authentication failed for user " + user;
            }
            if (state.equals("3D000")) return "the database " + db + " does not exist";
            if (state.equals("42501")) return "the user " + user + " may not connect to the database " + db;
            if (state.equals("53300")) return "the server at " + at + " has too many connections";
        } else {
            if (code == 1045) return "authentication failed for user " + user + " (wrong user, password or service_key)";
            if (code == 1049) return "the database " + db + " does not exist";
            if (code == 1044) return "the user " + user + " has no access to the database " + db;
            if (code == 1130) return "the server at " + at + " does not accept connections for user " + user + " from this host";
            if (code == 1040) return "the server at " + at + " has too many connections";
        }
        if (state.startsWith("08")) return "could not connect to " + at + " (connection failure, SQL state " + state + ")";
        if (state.startsWith("28")) return "authentication failed for user " + user;
        return "could not connect to " + at + " (" + e.getClass().getSimpleName()
                + (state.isEmpty() ? "" : ", SQL state " + state) + (code != 0 ? ", error " + code : "") + ")";
    }

    /**
     * As {@link #describe}, for a database an account asked to connect to: a refused port, a silent one and
     * a port where something other than a database answers read the same, so that the log cannot be used
     * to map which ports of a network are open. What only a real database server can answer (its
     * authentication, a missing database) is said as it is.
     */
    static String describeTarget(SQLException e, DbAddress a) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        boolean network = state.startsWith("08");
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof UnknownHostException) return describe(e, a);
            if (t instanceof SocketException || t instanceof SocketTimeoutException
                    || t instanceof EOFException) network = true;
        }
        String plain = describe(e, a);
        if (network || plain.startsWith("could not connect to")) {
            return "no " + a.kind().label() + " server answered at " + a.host() + ":" + a.port()
                    + " (refused, unreachable within " + CONNECT_TIMEOUT_SECONDS + " s, or not a " + a.kind().label() + " server)";
        }
        return plain;
    }

    /** True when the failure is about reaching or logging in to the server, not about a statement. */
    static boolean isConnectFailure(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SocketException || t instanceof SocketTimeoutException || t instanceof UnknownHostException) {
                return true;
            }
        }
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        return state.startsWith("08") || state.startsWith("28") || state.equals("3D000")
                || e.getErrorCode() == 1045 || e.getErrorCode() == 1049 || e.getErrorCode() == 1130;
    }

    /** Why an admin statement failed: the server's message with the password masked, never the statement. */
    static String describeAdmin(SQLException e, String password) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        String m = e.getMessage() == null ? "" : e.getMessage().lines().findFirst().orElse("");
        if (password != null && !password.isEmpty()) m = m.replace(password, "****");
        if (m.length() > 300) m = m.substring(0, 300) + "…";
        return m + " (SQL state " + (state.isEmpty() ? "none" : state) + (e.getErrorCode() != 0 ? ", error " + e.getErrorCode() : "") + ")";
    }
}
