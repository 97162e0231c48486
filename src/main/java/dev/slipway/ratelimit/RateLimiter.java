package dev.slipway.ratelimit;

import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.jdbc.PrimaryKeyMapper;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.distributed.proxy.optimization.Optimizations;
import io.github.bucket4j.postgresql.Bucket4jPostgreSQL;
import io.github.bucket4j.postgresql.PostgreSQLSelectForUpdateBasedProxyManager;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Requests per minute per quota key, with Bucket4j. The quota refills whole once a minute
 * (like GitHub's), so "30 per minute" means exactly 30, and the reset time is when it is full again.
 * In memory for the embedded store; in the {@code rate_limit_buckets} table on PostgreSQL so that
 * every server shares one count.
 */
public final class RateLimiter {
    private static final Duration WINDOW = Duration.ofMinutes(1);
    private static final Logger LOG = LoggerFactory.getLogger(RateLimiter.class);

    private interface Buckets {
        Bucket get(String key, BucketConfiguration configuration);
        void sweep();
    }

    private final Buckets buckets;
    private final Buckets fallback;
    private final Clock clock;

    private RateLimiter(Buckets buckets, Buckets fallback, Clock clock) {
        this.buckets = buckets;
        this.fallback = fallback;
        this.clock = clock;
    }

    public static RateLimiter inMemory(Clock clock) {
        return new RateLimiter(local(), null, clock);
    }

    private static Buckets local() {
        ConcurrentHashMap<String, Bucket> map = new ConcurrentHashMap<>();
        return new Buckets() {
            @Override public Bucket get(String key, BucketConfiguration configuration) {
                return map.computeIfAbsent(key, k -> Bucket.builder().addLimit(configuration.getBandwidths()[0]).build());
            }
            @Override public void sweep() {
                // a bucket that is full again holds no state worth keeping
                map.entrySet().removeIf(e -> {
                    long capacity = e.getValue().getAvailableTokens();
                    return capacity >= capacityOf(e.getKey());
                });
            }
        };
    }

    public static RateLimiter postgres(DataSource dataSource, Clock clock) {
        PostgreSQLSelectForUpdateBasedProxyManager<String> manager = Bucket4jPostgreSQL
                .selectForUpdateBasedBuilder(dataSource)
                .primaryKeyMapper(PrimaryKeyMapper.STRING)
                .table("rate_limit_buckets").idColumn("id").stateColumn("state").expiresAtColumn("expires_at")
                .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(5)))
                .build();
        ProxyManager<String> proxies = manager;
        // one proxy per key, shared by all request threads, so that concurrent requests of an account
        // are batched into one row-locked transaction instead of queueing on the row one by one
        ConcurrentHashMap<String, Bucket> shared = new ConcurrentHashMap<>();
        return new RateLimiter(new Buckets() {
            @Override public Bucket get(String key, BucketConfiguration configuration) {
                return shared.computeIfAbsent(key, k -> proxies.builder()
                        .withOptimization(Optimizations.batching()).build(k, () -> configuration));
            }
            @Override public void sweep() {
                shared.clear();
                while (manager.removeExpired(1000) >= 1000) {
                    // keep deleting in batches until a short one
                }
            }
        }, local(), clock);
    }

    /** Counts one request against {@code subject}'s quota of {@code perMinute}. */
    public Decision acquire(String subject, int perMinute) {
        // the limit is part of the key, so changing an account's limit starts a fresh quota at the new size
        String key = subject + "/" + perMinute;
        ConsumptionProbe probe;
        try {
            probe = buckets.get(key, configuration(perMinute)).tryConsumeAndReturnRemaining(1);
        } catch (RuntimeException storeDown) {
            if (fallback == null) throw storeDown;
            LOG.warn("shared rate-limit store failed, counting on this server only: {}", storeDown.toString(), storeDown);
            // the shared store is unreachable: keep limiting, per server, rather than not at all
            probe = fallback.get(key, configuration(perMinute)).tryConsumeAndReturnRemaining(1);
        }
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
        if (fallback != null) fallback.sweep();
        buckets.sweep();
    }

    private static BucketConfiguration configuration(int perMinute) {
        return BucketConfiguration.builder()
                .addLimit(Bandwidth.builder().capacity(perMinute).refillIntervally(perMinute, WINDOW).build())
                .build();
    }

    private static long capacityOf(String key) {
        return Long.parseLong(key.substring(key.lastIndexOf('/') + 1));
    }
}
