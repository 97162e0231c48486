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
    private final AtomicLongArray lastMillis = new AtomicLongArray(PORTS);
    private final RequestStats stats = new RequestStats();

    public RecentRequests(Clock clock) {
        this.clock = clock;
    }

    void record(int port) {
        long now = clock.millis();
        // at most one store per port and millisecond: busy apps do not bounce the cache line between cores
        if (lastMillis.getPlain(port) != now) lastMillis.setRelease(port, now);
    }

    /** A request to the port at {@code millis} that another process routed (a separate edge): the later time wins. */
    public void seen(int port, long millis) {
        if (port > 0 && port < PORTS) lastMillis.accumulateAndGet(port, millis, Math::max);
    }

    /** The counts and latencies of the requests relayed to each port. */
    public RequestStats stats() {
        return stats;
    }

    /** Epoch millis of the last request to the port, 0 when there was none. */
    public long lastMillis(int port) {
        return port > 0 && port < PORTS ? lastMillis.getAcquire(port) : 0;
    }
}
