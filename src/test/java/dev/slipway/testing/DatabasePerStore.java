package dev.slipway.testing;

import dev.slipway.store.Database;
import dev.slipway.store.Dialect;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.extension.AfterClassTemplateInvocationCallback;
import org.junit.jupiter.api.extension.BeforeClassTemplateInvocationCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A migrated {@link Database} on a fresh {@link TestStore} for each store kind of an {@link EachStore} class,
 * for store tests that need no server: opened before the class's tests on that kind, closed and dropped after.
 * <pre>{@code
 * @EachStore
 * class SomeStoreTest {
 *     @RegisterExtension
 *     static final DatabasePerStore db = DatabasePerStore.open(4);
 *
 *     final JobStore jobs = new JobStore(db.jdbi(), Clock.systemUTC());
 * }
 * }</pre>
 */
public final class DatabasePerStore implements BeforeClassTemplateInvocationCallback, AfterClassTemplateInvocationCallback {
    private final int poolSize;
    private TestStore store;
    private Database database;

    private DatabasePerStore(int poolSize) {
        this.poolSize = poolSize;
    }

    /** A database with a pool of this many connections. */
    public static DatabasePerStore open(int poolSize) {
        return new DatabasePerStore(poolSize);
    }

    @Override
    public void beforeClassTemplateInvocation(ExtensionContext context) {
        store = TestStore.create(EachStore.Kinds.of(context));
        try {
            database = Database.open(store.jdbcUrl(), poolSize);
        } catch (RuntimeException e) {
            store.close();
            store = null;
            throw e;
        }
    }

    @Override
    public void afterClassTemplateInvocation(ExtensionContext context) {
        try {
            if (database != null) database.close();
        } finally {
            database = null;
            if (store != null) store.close();
            store = null;
        }
    }

    /** The database of the store kind whose tests run now. */
    public Database get() {
        if (database == null) throw new IllegalStateException("no database: register DatabasePerStore on a static field of an @EachStore class");
        return database;
    }

    public Jdbi jdbi() { return get().jdbi(); }
    public DataSource dataSource() { return get().dataSource(); }
    public Dialect kind() { return get().dialect(); }

    /** The test store under the database: its URL, e.g. for a second pool or database on the same store. */
    public TestStore store() {
        get();
        return store;
    }
}
