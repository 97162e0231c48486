package dev.slipway.router;

import java.time.Clock;
import java.time.Duration;
import java.util.function.IntPredicate;

/**
 * How the apps listener wakes dormant apps.
 *
 * @param waker   starts (or finds) what serves an address
 * @param serving whether an instance listens on a loopback port: a route to any other port is stale
 * @param maxWait how long a request waits for a wake before it gets the 503 "starting" page
 * @param clock   when each port last had a request, and how long an unknown address is remembered
 */
public record Wakeups(Waker waker, IntPredicate serving, Duration maxWait, Clock clock) {
    /** No waking: routes are served as they are (tests of the router alone). */
    public static final Wakeups NONE = new Wakeups(Waker.NONE, port -> true, Duration.ZERO, Clock.systemUTC());
}
