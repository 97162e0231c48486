package dev.slipway.testing;

import dev.slipway.core.MicrosClock;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * The system's clock, which a test can move forward: time runs as usual, from further on. For a server whose
 * other work must keep its real pace while a test skips a wait (a rate-limit window).
 */
public final class OffsetClock extends Clock {
    private final Clock base = MicrosClock.system();
    private volatile Duration offset = Duration.ZERO;

    public void advance(Duration d) {
        offset = offset.plus(d);
    }

    @Override public ZoneId getZone() { return ZoneOffset.UTC; }
    @Override public Clock withZone(ZoneId zone) { return this; }
    @Override public Instant instant() { return base.instant().plus(offset); }
}
