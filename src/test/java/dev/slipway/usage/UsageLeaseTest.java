package dev.slipway.usage;

import dev.slipway.testing.DatabasePerStore;
import dev.slipway.testing.EachStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where every server reads the same pods, one at a time reports them: the first server to ask holds the lease and keeps
 * it while it renews it; another gets it only once it has run out, and then the first does not; on H2 and PostgreSQL.
 */
@EachStore
class UsageLeaseTest {
    @RegisterExtension
    static final DatabasePerStore database = DatabasePerStore.open(2);

    @Test
    void oneServerAtATimeHoldsTheSharedUsageLease() {
        UsageStore a = new UsageStore(database.jdbi(), "node-a"), b = new UsageStore(database.jdbi(), "node-b");
        Instant t = Instant.parse("2026-11-27T10:00:00Z");
        Duration lease = UsageSampler.LEASE;
        assertThat(a.holdShared(t, t.plus(lease))).isTrue();
        assertThat(b.holdShared(t.plusSeconds(1), t.plusSeconds(1).plus(lease))).isFalse();
        assertThat(a.holdShared(t.plusSeconds(10), t.plusSeconds(10).plus(lease))).as("renewed").isTrue();
        assertThat(b.holdShared(t.plusSeconds(39), t.plusSeconds(39).plus(lease))).as("not run out yet").isFalse();
        // a stops sampling: its lease runs out 30 s after its last renewal, and b takes it
        Instant later = t.plusSeconds(41);
        assertThat(b.holdShared(later, later.plus(lease))).isTrue();
        assertThat(a.holdShared(later.plusSeconds(1), later.plusSeconds(1).plus(lease))).isFalse();
    }
}
