package dev.slipway.ratelimit;

import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.TimeMeter;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.jdbc.PrimaryKeyMapper;
import io.github.bucket4j.postgresql.Bucket4jPostgreSQL;
import io.github.bucket4j.postgresql.PostgreSQLSelectForUpdateBasedProxyManager;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import dev.slipway.core.Incident;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * Requests per minute per quota key, with Bucket4j. The quota refills whole once a minute
 * (like GitHub's), so "30 per minute" means exactly 30, and the reset time is when it is full again.
 * In memory for the embedded store; in the {@code rate_limit_buckets} table on PostgreSQL so that
 * every server shares one count, spent through {@link SharedQuota slices} so that most requests
 * make no round trip.
 */
public final class RateLimiter {
    private static final Duration WINDOW = Duration.ofMinutes(1);
    private static final Logger LOG = LoggerFactory.getLogger(RateLimiter.class);

    private final ConcurrentHashMap<String, Bucket> local = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, SharedQuota> shared = new ConcurrentHashMap<>();
    private final PostgreSQLSelectForUpdateBasedProxyManager<String> store;
    private final Clock clock;
    /** The shared store failing: counted on this server meanwhile, logged once per incident. */
    private final Incident storeDown;
    /** Whether a failure says the store itself is away (it is the API's own store): told there, and the request refused. */
    private final Predicate<Throwable> storeAway;

    private RateLimiter(PostgreSQLSelectForUpdateBasedProxyManager<String> store, Clock clock, Predicate<Throwable> storeAway) {
        this.store = store;
        this.clock = clock;
        this.storeAway = storeAway;
        this.storeDown = new Incident(LOG, "the shared rate-limit store (counting on this server only meanwhile)", clock);
    }

    public static RateLimiter inMemory(Clock clock) {
        return new RateLimiter(null, clock, e -> false);
    }

    /**
     * @param storeAway tells the server's store health of a failure and whether it says the store is away: then the
     *                  request is refused at once (every query of its own would wait for the store too)
     */
    public static RateLimiter postgres(DataSource dataSource, Clock clock, Predicate<Throwable> storeAway) {
        return new RateLimiter(Bucket4jPostgreSQL
                .selectForUpdateBasedBuilder(dataSource)
                .primaryKeyMapper(PrimaryKeyMapper.STRING)
                .table("rate_limit_buckets").idColumn("id").stateColumn("state").expiresAtColumn("expires_at")
                .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(5)))
                .build(), clock, storeAway);
    }

    /** Counts one request against {@code subject}'s quota of {@code perMinute}. */
    public Decision acquire(String subject, int perMinute) {
        // the limit is part of the key, so changing an account's limit starts a fresh quota at the new size
        String key = subject + "/" + perMinute;
        if (store != null) {
            try {
                Decision d = shared.computeIfAbsent(key, k -> new SharedQuota(
                        store.builder().build(k, () -> configuration(perMinute)), perMinute, clock, storeDown)).acquire();
                storeDown.ok();
                return d;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                if (storeAway.test(e)) throw e;
                // the shared counts alone failed: keep limiting, per server, rather than not at all
                storeDown.failed(e);
            }
        }
        return acquireLocally(key, perMinute);
    }

    private Decision acquireLocally(String key, int perMinute) {
        ConsumptionProbe probe = local.computeIfAbsent(key, k -> Bucket.builder().withCustomTimePrecision(timeMeter(clock))
                .addLimit(configuration(perMinute).getBandwidths()[0]).build()).tryConsumeAndReturnRemaining(1);
        long nowMillis = clock.millis();
        long resetMillis = nowMillis + Math.max(0, probe.getNanosToWaitForReset() / 1_000_000);
        long resetEpochSeconds = (resetMillis + 999) / 1000;
        if (probe.isConsumed()) {
            return new Decision(true, perMinute, probe.getRemainingTokens(), resetEpochSeconds, 0);
        }
        long retryAfter = Math.max(1, (probe.getNanosToWaitForRefill() + 999_999_999L) / 1_000_000_000L);
        return new Decision(false, perMinute, 0, resetEpochSeconds, retryAfter);
    }

    /** Forgets quotas that are full again; called periodically. */
    public void sweep() {
        // a bucket that is full again holds no state worth keeping
        local.entrySet().removeIf(e -> e.getValue().getAvailableTokens() >= capacityOf(e.getKey()));
        if (store == null) return;
        shared.values().removeIf(SharedQuota::lapsed);
        while (store.removeExpired(1000) >= 1000) {
            // keep deleting in batches until a short one
        }
    }

    private static BucketConfiguration configuration(int perMinute) {
        return BucketConfiguration.builder()
                .addLimit(Bandwidth.builder().capacity(perMinute).refillIntervally(perMinute, WINDOW).build())
                .build();
    }

    /**
     * Bucket4j's time for the in-memory buckets, from the server's clock (the one every other time of the server comes
     * from). The shared buckets keep Bucket4j's own: every server's reservations meet in one row.
     */
    private static TimeMeter timeMeter(Clock clock) {
        return new TimeMeter() {
            @Override
            public long currentTimeNanos() {
                Instant now = clock.instant();
                return now.getEpochSecond() * 1_000_000_000L + now.getNano();
            }

            @Override
            public boolean isWallClockBased() {
                return true;
            }
        };
    }

    private static long capacityOf(String key) {
        return Long.parseLong(key.substring(key.lastIndexOf('/') + 1));
    }
}
