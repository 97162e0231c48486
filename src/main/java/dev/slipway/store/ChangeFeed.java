package dev.slipway.store;

import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;

/**
 * Listens on PostgreSQL notification channels over one connection of its own and hands each notice's
 * payload to its channel's listener. Every listener hears {@link Listener#listening()} once its channel is
 * listened to (every change from then on will be told) and {@link Listener#deaf()} when the connection is
 * lost (changes may go untold until the next {@code listening}); the feed reconnects, waiting up to 5 s
 * between tries.
 */
public final class ChangeFeed implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ChangeFeed.class);
    /** How long a wait for notices lasts before the connection is checked with a query. */
    private static final int CHECK_EVERY_MS = 2_000;
    private static final int MAX_RETRY_MS = 5_000;
    /** The name the feed's connection shows in {@code pg_stat_activity}. */
    public static final String APPLICATION_NAME = "slipway-change-feed";
    private static final Properties NAMED = new Properties();

    static {
        NAMED.setProperty("ApplicationName", APPLICATION_NAME);
    }

    public interface Listener extends Consumer<String> {
        void listening();

        void deaf();
    }

    private final String jdbcUrl;
    private final Map<String, Listener> listeners;
    private final Thread thread;
    private volatile boolean closed;
    private volatile Connection connection;

    private ChangeFeed(String jdbcUrl, Map<String, Listener> listeners) {
        for (String channel : listeners.keySet()) {
            if (!channel.matches("[a-z_]+")) throw new IllegalArgumentException("bad channel name: " + channel);
        }
        this.jdbcUrl = jdbcUrl;
        this.listeners = Map.copyOf(listeners);
        this.thread = Thread.ofPlatform().daemon().name("change-feed").unstarted(this::run);
    }

    /** @param listeners by channel */
    public static ChangeFeed start(String jdbcUrl, Map<String, Listener> listeners) {
        ChangeFeed feed = new ChangeFeed(jdbcUrl, listeners);
        feed.thread.start();
        return feed;
    }

    private void run() {
        int failures = 0;
        while (!closed) {
            try (Connection c = DriverManager.getConnection(jdbcUrl, NAMED)) {
                connection = c;
                try (Statement s = c.createStatement()) {
                    for (String channel : listeners.keySet()) s.execute("LISTEN " + channel);
                }
                listeners.values().forEach(Listener::listening);
                if (failures > 0) LOG.info("listening to {} again", listeners.keySet());
                failures = 0;
                PGConnection pg = c.unwrap(PGConnection.class);
                while (!closed) {
                    PGNotification[] notices = pg.getNotifications(CHECK_EVERY_MS);
                    if (notices == null || notices.length == 0) {
                        check(c);
                        continue;
                    }
                    for (PGNotification n : notices) {
                        Listener listener = listeners.get(n.getName());
                        if (listener != null) listener.accept(n.getParameter());
                    }
                }
            } catch (SQLException | RuntimeException e) {
                listeners.values().forEach(Listener::deaf);
                if (closed) return;
                failures++;
                if (failures == 1) LOG.warn("lost the {} notices ({}); reading from the store until they are back", listeners.keySet(), e.getMessage());
                pause(Math.min(MAX_RETRY_MS, 100L << Math.min(failures, 6)));
            } finally {
                connection = null;
            }
        }
    }

    private static void check(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.setQueryTimeout(5);
            s.execute("SELECT 1");
        }
    }

    private void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closed = true;
        }
    }

    @Override
    public void close() {
        closed = true;
        Connection c = connection;
        if (c != null) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // closing a connection that is already broken
            }
        }
        thread.interrupt();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        listeners.values().forEach(Listener::deaf);
    }
}
