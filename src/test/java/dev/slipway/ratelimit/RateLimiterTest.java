package dev.slipway.ratelimit;

import dev.slipway.store.Dialect;
import dev.slipway.testing.DatabasePerStore;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.MutableClock;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/** The limiter itself, under concurrency, on each store (the HTTP behaviour is in api.RateLimitTest). */
@EachStore
class RateLimiterTest {
    final Dialect kind = database.kind();

    @RegisterExtension
    static final DatabasePerStore database = DatabasePerStore.open(10);

    private RateLimiter newServer() {
        return newServer(Clock.systemUTC());
    }

    private RateLimiter newServer(Clock clock) {
        return kind == Dialect.POSTGRES ? RateLimiter.postgres(database.dataSource(), clock, e -> false) : RateLimiter.inMemory(clock);
    }

    /** Fires all requests at once, spread over the limiters in turn; the decisions in arrival order of their futures. */
    private static List<Decision> burst(List<RateLimiter> servers, String subject, int perMinute, int requests) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Decision>> futures = new ArrayList<>();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < requests; i++) {
                RateLimiter server = servers.get(i % servers.size());
                futures.add(pool.submit(() -> {
                    go.await();
                    return server.acquire(subject, perMinute);
                }));
            }
            go.countDown();
            List<Decision> out = new ArrayList<>();
            for (Future<Decision> f : futures) out.add(f.get());
            return out;
        }
    }

    @Test
    void concurrentFirstRequestsOfAFreshQuotaAdmitExactlyTheLimit() throws Exception {
        RateLimiter server = newServer();
        // many rounds, each on a fresh key: the first requests of a quota race to create its bucket
        for (int round = 0; round < 40; round++) {
            List<Decision> decisions = burst(List.of(server), "ip:round-" + round, 30, 40);
            assertThat(decisions.stream().filter(Decision::allowed).count()).as("round %d", round).isEqualTo(30);
            assertThat(decisions.stream().filter(Decision::allowed).map(Decision::remaining))
                    .as("round %d", round).containsExactlyInAnyOrderElementsOf(LongStream.range(0, 30).boxed().toList());
            assertThat(decisions.stream().filter(d -> !d.allowed())).allSatisfy(d -> {
                assertThat(d.remaining()).isZero();
                assertThat(d.retryAfterSeconds()).isBetween(1L, 60L);
            });
        }
    }

    @Test
    void twoServersOnOneStoreNeverAdmitMoreThanTheLimitTogether() throws Exception {
        Assumptions.assumeTrue(kind == Dialect.POSTGRES,
                "the embedded store is one process; sharing across servers is a PostgreSQL feature");
        // a limit large enough that slices of several tokens are reserved at a time
        List<Decision> decisions = burst(List.of(newServer(), newServer()), "acct:shared", 1000, 1600);
        // never more; a server whose requests ended holds back at most a slice (1/50 of the limit) until the refill
        assertThat(decisions.stream().filter(Decision::allowed).count()).isBetween(1000L - 2 * 1000 / 50, 1000L);
    }

    @Test
    void aSlowTrickleOnOneServerSeesEveryTokenCountedDown() {
        RateLimiter server = newServer();
        for (int i = 0; i < 120; i++) {
            Decision d = server.acquire("acct:trickle", 120);
            assertThat(d.allowed()).isTrue();
            assertThat(d.remaining()).isEqualTo(119 - i);
        }
        assertThat(server.acquire("acct:trickle", 120).allowed()).isFalse();
    }

    @Test
    void aQuotaRefillsWhenTheServersClockPassesItsMinute() {
        Assumptions.assumeTrue(kind == Dialect.H2, "the shared buckets on PostgreSQL keep Bucket4j's own time");
        MutableClock clock = new MutableClock();
        RateLimiter server = newServer(clock);
        String subject = "acct:clock-" + UUID.randomUUID();
        for (int i = 0; i < 5; i++) assertThat(server.acquire(subject, 5).allowed()).isTrue();
        Decision refused = server.acquire(subject, 5);
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.retryAfterSeconds()).isEqualTo(60);
        clock.advance(Duration.ofSeconds(58));
        assertThat(server.acquire(subject, 5).retryAfterSeconds()).isEqualTo(2);
        clock.advance(Duration.ofSeconds(2));
        Decision refilled = server.acquire(subject, 5);
        assertThat(refilled.allowed()).isTrue();
        assertThat(refilled.remaining()).isEqualTo(4);
    }
}
