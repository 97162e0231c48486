package dev.slipway.router;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.LongAdder;

/**
 * One line per request the router relayed, held until the server's writer takes them (about once a second). Bounded:
 * when the writer falls behind (the store is down), new lines are dropped and counted, so the relay never waits on it
 * and its memory stays put.
 */
public final class RequestLog {
    /** Lines held at most: about 200 bytes each. */
    public static final int CAPACITY = 50_000;
    /** A path longer than this is cut (the request itself is relayed whole). */
    static final int MAX_PATH = 1024;

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
}
