package dev.slipway.api;

import io.javalin.http.Context;

import java.time.Duration;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * {@code ?wait=<seconds ≤ 60>} on single reads: answer when the status changes from what it was
 * when the request came, when the record reaches a final state, or when the time is up. Reads the
 * store, so it sees changes made by any server.
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

    public static <T> T await(Context ctx, Supplier<T> read, Function<T, String> status, Function<T, Boolean> finished)
            throws InterruptedException {
        Duration wait = waitParam(ctx);
        T current = read.get();
        if (wait.isZero() || finished.apply(current)) return current;
        String initial = status.apply(current);
        long deadline = System.nanoTime() + wait.toNanos();
        while (System.nanoTime() < deadline) {
            Thread.sleep(Math.min(POLL_MILLIS, Math.max(1, (deadline - System.nanoTime()) / 1_000_000)));
            current = read.get();
            if (!status.apply(current).equals(initial) || finished.apply(current)) return current;
        }
        return current;
    }
}
