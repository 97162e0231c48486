package dev.slipway.api;

import dev.slipway.core.StatusChanges;
import dev.slipway.monitoring.Metrics;
import io.javalin.http.Context;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * {@code ?wait=<seconds ≤ 60>} on single reads: answer when the status changes from what it was
 * when the request came, when the record reaches a final state, or when the time is up.
 */
public final class LongPoll {
    public static final int MAX_WAIT_SECONDS = 60;
    private static final long POLL_MILLIS = 200;

    private LongPoll() {}

    public static Duration waitParam(Context ctx) {
        String raw = ctx.queryParam("wait");
        if (raw == null || raw.isEmpty()) return Duration.ZERO;
        try {
            int seconds = Integer.parseInt(raw.trim());
            if (seconds >= 0 && seconds <= MAX_WAIT_SECONDS) return Duration.ofSeconds(seconds);
        } catch (NumberFormatException ignored) {
            // falls through to the error
        }
        throw ApiException.invalidField("wait", "must be an integer number of seconds from 0 to " + MAX_WAIT_SECONDS);
    }

    /**
     * The record {@code id} as {@code read} gives it, once the wait is over. A change signalled on
     * {@code changes} ends the wait at once; the store is also read every {@value #POLL_MILLIS} ms, for a
     * change whose signal was lost (another server's, while the store's notices were down).
     */
    public static <T> T await(Context ctx, StatusChanges changes, String id, Supplier<T> read,
                              Function<T, String> status, Function<T, Boolean> finished) throws InterruptedException {
        Duration wait = waitParam(ctx);
        if (!wait.isZero()) ctx.attribute(Metrics.WAITED, true);
        return await(wait, Duration.ofMillis(POLL_MILLIS), changes, id, read, status, finished);
    }

    static <T> T await(Duration wait, Duration poll, StatusChanges changes, String id, Supplier<T> read,
                       Function<T, String> status, Function<T, Boolean> finished) throws InterruptedException {
        if (wait.isZero()) return read.get();
        long seen = changes.watch(id); // before the first read: a change right after it still ends the wait
        try {
            T current = read.get();
            if (finished.apply(current)) return current;
            String initial = status.apply(current);
            long deadline = System.nanoTime() + wait.toNanos();
            long left;
            while ((left = deadline - System.nanoTime()) > 0) {
                seen = changes.await(id, seen, Math.min(poll.toNanos(), left), TimeUnit.NANOSECONDS);
                current = read.get();
                if (!status.apply(current).equals(initial) || finished.apply(current)) return current;
            }
            return current;
        } finally {
            changes.unwatch(id);
        }
    }
}
