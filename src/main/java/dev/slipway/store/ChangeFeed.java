package dev.slipway.store;

import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.function.Consumer;

/**
 * Listens on a PostgreSQL notification channel over a connection of its own and hands each notice's
 * payload to a listener. The listener hears {@link Listener#listening()} once the channel is listened to
 * (every change from then on will be told) and {@link Listener#deaf()} when the connection is lost (changes
 * may go untold until the next {@code listening}); the feed reconnects, waiting up to 5 s between tries.
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
    private final String channel;
    private final Listener listener;
    private final Thread thread;
    private volatile boolean closed;
    private volatile Connection connection;

    private ChangeFeed(String jdbcUrl, String channel, Listener listener) {
        if (!channel.matches("[a-z_]+")) throw new IllegalArgumentException("bad channel name: " + channel);
        this.jdbcUrl = jdbcUrl;
        this.channel = channel;
        this.listener = listener;
        this.thread = Thread.ofPlatform().daemon().name("change-feed-" + channel).unstarted(this::run);
    }

    public static ChangeFeed start(String jdbcUrl, String channel, Listener listener) {
        ChangeFeed feed = new ChangeFeed(jdbcUrl, channel, listener);
        feed.thread.start();
        return feed;
    }

    private void run() {
        int failures = 0;
        while (!closed) {
            try (Connection c = DriverManager.getConnection(jdbcUrl, NAMED)) {
                connection = c;
                try (Statement s = c.createStatement()) {
                    s.execute("LISTEN " + channel);
                }
                listener.listening();
                if (failures > 0) LOG.info("listening to {} again", channel);
                failures = 0;
                PGConnection pg = c.unwrap(PGConnection.class);
                while (!closed) {
                    PGNotification[] notices = pg.getNotifications(CHECK_EVERY_MS);
                    if (notices == null || notices.length == 0) {
                        check(c);
                        continue;
                    }
                    for (PGNotification n : notices) listener.accept(n.getParameter());
                }
            } catch (SQLException | RuntimeException e) {
                listener.deaf();
                if (closed) return;
                failures++;
                if (failures == 1) LOG.warn("lost the {} notices ({}); reading from the store until they are back", channel, e.getMessage());
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
        listener.deaf();
    }
}
