package dev.slipway.store;

import dev.slipway.testing.TestStore;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A pool whose every connection is busy for a whole wait is load (a 503 to retry, the store not taken for away); a pool
 * that cannot make a connection is the store away.
 */
class StoreFailureTest {
    @Test
    void aPoolBusyForTheWholeWaitIsLoadNotAnOutage() {
        try (TestStore store = TestStore.create(Dialect.H2); Database db = Database.open(store.jdbcUrl(), 2);
             Handle one = db.jdbi().open(); Handle two = db.jdbi().open()) {
            one.createQuery("SELECT 1").mapTo(Integer.class).one();
            two.createQuery("SELECT 1").mapTo(Integer.class).one();
            Throwable waited = catchThrowable(() -> db.jdbi().withHandle(h -> h.createQuery("SELECT 1").mapTo(Integer.class).one()));
            assertThat(waited).isNotNull();
            assertThat(StoreFailure.busy(waited)).as("every connection busy: %s", waited).isTrue();
            assertThat(StoreFailure.unavailable(waited)).isEmpty();
        }
    }

    @Test
    void aPoolThatCannotConnectIsTheStoreAway() {
        var away = new SQLTransientConnectionException("slipway-store - Connection is not available",
                new SQLException("Connection refused", "08001"));
        assertThat(StoreFailure.unavailable(new RuntimeException(away))).isPresent();
        assertThat(StoreFailure.busy(new RuntimeException(away))).isFalse();
    }
}
