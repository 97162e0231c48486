package dev.slipway.router;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * One line per request the router relayed, held until the server's writer takes them (about once a second). Bounded:
 * when the writer falls behind (the store is down), new lines are dropped and counted, so the relay never waits on it
 * and its memory stays put.
 * <p>
 * An app busier than {@link #LINES_PER_SECOND} requests a second has its lines sampled: storing every line of tens of
 * thousands a second cost the server more CPU than relaying them (bench/engine.sh, router part), and its log would
 * hold only the last seconds. Answers of 500 and above have a budget of their own, so an app's failures are not
 * crowded out by its successes, nor the other way round. The counts and latencies ({@link RequestStats}) keep every
 * request.
 */
public final class RequestLog {
    /** Lines held at most: about 200 bytes each. */
    public static final int CAPACITY = 50_000;
    /** Lines kept per app port and second, of answers below 500 and again of answers of 500 and above. */
    public static final int LINES_PER_SECOND = 200;
    /** A path longer than this is cut (the request itself is relayed whole). */
    static final int MAX_PATH = 1024;
    private static final int PORTS = 65_536;

    /**
     * A relayed request.
     *
     * @param port   the app port it went to (what tells its deployment)
     * @param path   the request target without its query
     * @param micros from its head to the answer's last byte
     * @param bytes  the answer's body
     */
    public record Line(long atMillis, int port, String method, String path, int status, long micros, long bytes, String client) {}

    private final ArrayBlockingQueue<Line> lines = new ArrayBlockingQueue<>(CAPACITY);
    private final LongAdder dropped = new LongAdder();
    /** Per port: the sample of answers below 500 at [0], of 500 and above at [1]; made at the port's first request. */
    private final AtomicReferenceArray<Sample[]> samples = new AtomicReferenceArray<>(PORTS);
    private final int perSecond;

    public RequestLog() {
        this(LINES_PER_SECOND);
    }

    RequestLog(int perSecond) {
        this.perSecond = perSecond;
    }

    /** Whether a request to {@code port} answered with {@code status} at {@code atMillis} gets a line (then {@link #record}). */
    public boolean admits(int port, long atMillis, int status) {
        if (port <= 0 || port >= PORTS) return true;
        Sample[] s = samples.get(port);
        if (s == null) {
            samples.compareAndSet(port, null, new Sample[] {new Sample(), new Sample()});
            s = samples.get(port);
        }
        return s[status >= 500 ? 1 : 0].admits(atMillis / 1000, perSecond);
    }

    public void record(Line line) {
        if (!lines.offer(line)) dropped.increment();
    }

    /** Every line held, oldest first, and forgets them. */
    public List<Line> drain() {
        List<Line> out = new ArrayList<>(Math.min(lines.size(), CAPACITY));
        lines.drainTo(out);
        return out;
    }

    /** Lines dropped since the start because the writer had not taken the ones before. */
    public long dropped() {
        return dropped.sum();
    }

    /**
     * One second's sample of a port's requests: while the second before had no more than the budget, the first
     * {@code budget} requests; after a busier one, every n-th request, n from that second's count, so that the kept lines
     * spread over the whole second (and still no more than the budget, should it be busier still).
     */
    static final class Sample {
        private long second = Long.MIN_VALUE;
        private int seen;
        private int kept;
        private int every = 1;

        synchronized boolean admits(long second, int budget) {
            if (second != this.second) {
                every = second == this.second + 1 ? Math.max(1, (seen + budget - 1) / budget) : 1;
                this.second = second;
                seen = 0;
                kept = 0;
            }
            boolean keep = kept < budget && seen % every == 0;
            seen++;
            if (keep) kept++;
            return keep;
        }
    }
}
