package dev.slipway.core;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;

/** A clock truncated to microseconds, the precision PostgreSQL and H2 keep, so a stored time reads back equal. */
public final class MicrosClock extends Clock {
    private final Clock base;

    public MicrosClock(Clock base) {
        this.base = base;
    }

    public static Clock system() {
        return new MicrosClock(Clock.systemUTC());
    }

    @Override public ZoneId getZone() { return ZoneOffset.UTC; }
    @Override public Clock withZone(ZoneId zone) { return this; }
    @Override public Instant instant() { return base.instant().truncatedTo(ChronoUnit.MICROS); }
    @Override public long millis() { return base.millis(); }
}
