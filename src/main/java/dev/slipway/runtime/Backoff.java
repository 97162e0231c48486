package dev.slipway.runtime;

import java.time.Duration;

/** Delays between attempts (restarts after crashes, wakes after failed starts): min, 2·min, 4·min … capped at max. */
public final class Backoff {
    private Backoff() {}

    /** @param crash consecutive failures, from 1 */
    public static Duration delay(int crash, Duration min, Duration max) {
        int doublings = Math.min(Math.max(crash - 1, 0), 30);
        Duration d = min.multipliedBy(1L << doublings);
        return d.compareTo(max) > 0 ? max : d;
    }
}
