package dev.slipway.ratelimit;

import io.github.bucket4j.Bucket;
import io.github.bucket4j.VerboseResult;

import dev.slipway.core.Incident;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * This server's share of one key's quota in the PostgreSQL-backed bucket. Requests spend tokens of a
 * slice reserved from the shared bucket in one row-locked transaction. When half a slice is spent, the
 * next slice is reserved in the background, so busy keys do not stall on the round trip; the slice
 * doubles while slices last under {@link #FAST_MILLIS} and halves while they last over {@link #SLOW_MILLIS}.
 * A slice is at most {@link #capOf 1/50 of the limit}: admissions never exceed the limit over all
 * servers, and a server whose traffic stops holds back at most that many tokens until the refill.
 * Below 100 per minute the cap is one token, so every request is counted in the shared bucket itself.
 */
final class SharedQuota {
    private static final long FAST_MILLIS = 100;
    private static final long SLOW_MILLIS = 1000;

    private final Bucket shared;
    private final int perMinute;
    private final Clock clock;
    private final Incident storeDown;
    private final AtomicInteger waiting = new AtomicInteger();
    private long reserved;          // taken from the shared bucket, not spent yet
    private long sharedLeft;        // left in the shared bucket after the last reservation
    private long refillAtMillis;    // when the shared bucket is full again; reserved tokens lapse then
    private long slice = 1;
    private long lastReservedAtMillis;
    private boolean reserving;

    /** @param storeDown where a failed reservation is told (once per incident in the log) */
    SharedQuota(Bucket shared, int perMinute, Clock clock, Incident storeDown) {
        this.storeDown = storeDown;
        this.shared = shared;
        this.perMinute = perMinute;
        this.clock = clock;
    }

    static long capOf(int perMinute) {
        return Math.max(1, perMinute / 50);
    }

    Decision acquire() throws InterruptedException {
        waiting.incrementAndGet();
        try {
            while (true) {
                long want;
                Decision decision = null;
                synchronized (this) {
                    long now = clock.millis();
                    if (now >= refillAtMillis) reserved = 0;
                    if (reserved > 0) {
                        reserved--;
                        decision = new Decision(true, perMinute, reserved + sharedLeft, resetSeconds(), 0);
                        if (reserving || reserved >= slice / 2 || sharedLeft == 0) return decision;
                    } else if (reserving) {
                        wait();
                        continue;
                    } else if (sharedLeft == 0 && now < refillAtMillis) {
                        return new Decision(false, perMinute, 0, resetSeconds(), Math.max(1, (refillAtMillis - now + 999) / 1000));
                    }
                    reserving = true;
                    want = nextSlice(now);
                }
                if (decision == null) {
                    reserve(want);
                    continue;
                }
                Thread.ofVirtual().name("quota-reserve").start(() -> {
                    try {
                        reserve(want);
                    } catch (RuntimeException e) {
                        storeDown.failed(e);
                    }
                });
                return decision;
            }
        } finally {
            waiting.decrementAndGet();
        }
    }

    /** True once the quota has refilled, so nothing reserved here is worth keeping. */
    synchronized boolean lapsed() {
        return !reserving && clock.millis() >= refillAtMillis;
    }

    private long nextSlice(long now) {
        long lasted = now - lastReservedAtMillis;
        if (lasted < FAST_MILLIS) slice = slice * 2;
        else if (lasted > SLOW_MILLIS) slice = slice / 2;
        slice = Math.clamp(slice, 1, capOf(perMinute));
        return Math.clamp(Math.max(slice, waiting.get()), 1, capOf(perMinute));
    }

    private void reserve(long want) {
        try {
            VerboseResult<Long> result = shared.asVerbose().tryConsumeAsMuchAsPossible(want);
            synchronized (this) {
                long now = clock.millis();
                if (now >= refillAtMillis) reserved = 0;
                reserved += result.getValue();
                sharedLeft = result.getDiagnostics().getAvailableTokens();
                refillAtMillis = now + Math.max(1, result.getDiagnostics().calculateFullRefillingTime() / 1_000_000);
                lastReservedAtMillis = now;
            }
        } finally {
            synchronized (this) {
                reserving = false;
                notifyAll();
            }
        }
    }

    private long resetSeconds() {
        return (refillAtMillis + 999) / 1000;
    }
}
