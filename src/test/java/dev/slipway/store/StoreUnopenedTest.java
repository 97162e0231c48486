package dev.slipway.store;

import org.junit.jupiter.api.Test;

import java.sql.SQLException;

import static org.assertj.core.api.Assertions.assertThat;

/** What an operator is told about a store that cannot be opened names it, never the URL's credentials. */
class StoreUnopenedTest {
    @Test
    void theStoreIsNamedWithoutItsUserPasswordOrOptions() {
        assertThat(StoreUnopened.describe("jdbc:h2:file:/data/slipway;AUTO_SERVER=TRUE;CIPHER=AES;PASSWORD=s3cret s3cret"))
                .isEqualTo("the embedded H2 store");
        assertThat(StoreUnopened.describe("jdbc:postgresql://db.internal:5433/slipway?user=slipway&password=s3cret"))
                .isEqualTo("PostgreSQL at db.internal:5433/slipway");
        assertThat(StoreUnopened.describe("jdbc:postgresql://slipway:s3cret@db.internal/slipway"))
                .isEqualTo("PostgreSQL at db.internal/slipway");
        assertThat(StoreUnopened.describe("jdbc:mysql://db/x?password=s3cret")).doesNotContain("s3cret");
    }

    @Test
    void theReasonIsTheDriversOwnWords() {
        var wrapped = new RuntimeException("Failed to initialize pool: refused", new SQLException("Connection to db.internal:5433 refused"));
        assertThat(new StoreUnopened("jdbc:postgresql://db.internal:5433/slipway?password=s3cret", wrapped).getMessage())
                .isEqualTo("the store (PostgreSQL at db.internal:5433/slipway) could not be opened: Connection to db.internal:5433 refused");
    }
}
