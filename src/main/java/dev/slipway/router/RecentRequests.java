package dev.slipway.router;

import java.time.Clock;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * When the apps listener last routed a request (or relayed a WebSocket frame) to each loopback port:
 * what tells a busy retired app from an idle one. One slot per port (512 KiB), so recording is a
 * clock read and at most one release store: no lookup, no allocation, no lock.
 */
public final class RecentRequests {
    private static final int PORTS = 65_536;

    private final Clock clock;
    private final boolean measured;
    private final AtomicLongArray lastMillis = new AtomicLongArray(PORTS);
    private final RequestStats stats = new RequestStats();
    private final RequestLog log = new RequestLog();

    public RecentRequests(Clock clock) {
        this(clock, true);
    }

    /**
     * @param measured whether each request is counted in {@link #stats} and logged in {@link #log}; false only to measure
     *                 what that costs the relay (bench/relay-cost.sh)
     */
    public RecentRequests(Clock clock, boolean measured) {
        this.clock = clock;
        this.measured = measured;
    }

    boolean measured() {
        return measured;
    }

    /** A request to the port begins now: the time, in epoch millis. */
    long record(int port) {
        long now = clock.millis();
        // at most one store per port and millisecond: busy apps do not bounce the cache line between cores
        if (lastMillis.getPlain(port) != now) lastMillis.setRelease(port, now);
        return now;
    }

    /** A request to the port at {@code millis} that another process routed (a separate edge): the later time wins. */
    public void seen(int port, long millis) {
        if (port > 0 && port < PORTS) lastMillis.accumulateAndGet(port, millis, Math::max);
    }

    /** The counts and latencies of the requests relayed to each port. */
    public RequestStats stats() {
        return stats;
    }

    /** A line per request relayed, until the server's writer takes them. */
    public RequestLog log() {
        return log;
    }

    /** Epoch millis of the last request to the port, 0 when there was none. */
    public long lastMillis(int port) {
        return port > 0 && port < PORTS ? lastMillis.getAcquire(port) : 0;
    }
}
