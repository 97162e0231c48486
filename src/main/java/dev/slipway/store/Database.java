package dev.slipway.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.flywaydb.core.Flyway;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.StatementExceptions;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The store: a pooled connection to H2 (embedded default, file under the data dir) or PostgreSQL,
 * with the schema brought up to date by Flyway on open.
 */
public final class Database implements AutoCloseable {
    /**
     * How long a query waits for a connection: a store that went away is told to the first request within this (a
     * 503 to retry), and a pool that is busy for this long answers the same.
     */
    private static final long CONNECTION_TIMEOUT_MS = 1_500;
    private final HikariDataSource dataSource;
    private final Jdbi jdbi;
    private final Dialect kind;
    private final List<Runnable> closeFirst = new CopyOnWriteArrayList<>();

    private Database(HikariDataSource dataSource, Dialect kind) {
        this.dataSource = dataSource;
        this.kind = kind;
        this.jdbi = Jdbi.create(dataSource);
        // a failed statement's message names the failure only: its SQL and bound values (ids, hashes, ciphertexts) stay
        // out of every log line and stack trace
        jdbi.getConfig(StatementExceptions.class).setMessageRendering(StatementExceptions.MessageRendering.NONE);
    }

    /** The JDBC URL of the embedded store in a data dir, password included ({@link EmbeddedStore}). */
    public static String h2Url(Path dataDir) {
        return EmbeddedStore.url(dataDir);
    }

    /** The migrations written in Java (PostgreSQL's triggers), beside the SQL ones under db/migration. */
    public static org.flywaydb.core.api.migration.JavaMigration[] javaMigrations() {
        return new org.flywaydb.core.api.migration.JavaMigration[]{new ChangeNotices(), new StatusNotices(), new VerifiedDomains(),
                new ShownChangeNotices()};
    }

    /** @throws StoreUnopened the store cannot be reached, or its schema not brought up to date */
    public static Database open(String jdbcUrl, int poolSize) {
        Dialect kind = Dialect.of(jdbcUrl);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setMaximumPoolSize(poolSize);
        config.setMinimumIdle(Math.min(2, poolSize));
        config.setPoolName("slipway-store");
        // a request waits this long for a connection: a store that is away is told to the client as a 503 within seconds
        config.setConnectionTimeout(CONNECTION_TIMEOUT_MS);
        config.setInitializationFailTimeout(10_000);
        config.setExceptionOverrideClassName(EvictWhenAway.class.getName());
        HikariDataSource dataSource;
        try {
            dataSource = new HikariDataSource(config);
        } catch (RuntimeException e) {
            throw new StoreUnopened(jdbcUrl, e);
        }
        try {
            Flyway.configure()
                    .dataSource(dataSource)
                    .locations("classpath:db/migration")
                    .javaMigrations(javaMigrations())
                    .load()
                    .migrate();
        } catch (RuntimeException e) {
            dataSource.close();
            throw new StoreUnopened(jdbcUrl, e);
        }
        return new Database(dataSource, kind);
    }

    /**
     * A small pool of its own on the same store, for work that must not queue behind request queries
     * for a connection (every request waits on the rate limiter's round trips). Closed with this.
     */
    public HikariDataSource sidePool(String name, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(dataSource.getJdbcUrl());
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(1);
        config.setPoolName(name);
        config.setConnectionTimeout(CONNECTION_TIMEOUT_MS);
        config.setExceptionOverrideClassName(EvictWhenAway.class.getName());
        HikariDataSource side = new HikariDataSource(config);
        closeFirst.add(side::close);
        return side;
    }

    /**
     * On PostgreSQL, hands the payload of each notice to its channel's listener until this closes, over one
     * connection for all the channels given ({@link ChangeFeed}); the embedded store has a single server
     * and no notices to give.
     */
    public void listen(Map<String, ChangeFeed.Listener> listeners) {
        if (kind.shared()) closeFirst.add(ChangeFeed.start(dataSource.getJdbcUrl(), listeners)::close);
    }

    public Jdbi jdbi() { return jdbi; }
    public HikariDataSource dataSource() { return dataSource; }
    public Dialect dialect() { return kind; }

    /**
     * Whether the store answers a connection of its own, outside the pool: a pool whose connections are all busy is
     * not a store that is away.
     */
    public boolean answers() {
        try (var c = java.sql.DriverManager.getConnection(dataSource.getJdbcUrl())) {
            return c.isValid(2);
        } catch (Exception e) {
            return false;
        }
    }

    public boolean reachable() {
        try (var c = dataSource.getConnection()) {
            return c.isValid(2);
        } catch (Exception e) {
            return false;
        }
    }

    @Override
    public void close() {
        closeFirst.forEach(Runnable::run);
        dataSource.close();
    }
}
