package dev.slipway.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waits for a condition with a deadline; fails with a description when it does not come true. */
public final class Await {
    private static final Duration POLL = Duration.ofMillis(20);
    /**
     * Every deadline is what a quiet machine needs, times this: CI shares two cores among the suite,
     * the store, npm and the apps. A passing wait returns as soon as its condition holds, so only a
     * failure takes longer to report.
     */
    private static final int PATIENCE = 3;

    private Await() {}

    public static void until(Duration timeout, String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos() * PATIENCE;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline >= 0) throw new AssertionError("timed out after " + timeout.multipliedBy(PATIENCE) + " waiting for " + what);
            pause();
        }
    }

    /** Polls until the supplier returns non-null and returns that value. */
    public static <T> T value(Duration timeout, String what, Supplier<T> supplier) {
        long deadline = System.nanoTime() + timeout.toNanos() * PATIENCE;
        while (true) {
            T v = supplier.get();
            if (v != null) return v;
            if (System.nanoTime() - deadline >= 0) throw new AssertionError("timed out after " + timeout.multipliedBy(PATIENCE) + " waiting for " + what);
            pause();
        }
    }

    private static void pause() {
        try {
            Thread.sleep(POLL);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted");
        }
    }
}
