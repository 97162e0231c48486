package dev.slipway.router;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.zip.DataFormatException;

/**
 * The requests the router relayed to each app port since they were last taken: how many, by status class, the bytes of
 * their answers, and their latency (from the request's head to the answer's last byte) in an HDR histogram. Recording
 * is lock-free (striped adders, a wait-free recorder), so the relay's loops never wait on each other or on a reader.
 */
public final class RequestStats {
    /** Latencies are recorded in microseconds, up to an hour, to 2 significant digits. */
    private static final long MAX_MICROS = 3_600_000_000L;

    /**
     * One port's requests over an interval.
     *
     * @param classes answers by status class: index 1 to 5 for 1xx to 5xx
     * @param latency microseconds
     */
    public record Interval(long requests, long[] classes, long bytes, Histogram latency) {
        /** The two intervals as one. */
        public Interval plus(Interval o) {
            long[] c = new long[6];
            for (int i = 0; i < 6; i++) c[i] = classes[i] + o.classes[i];
            Histogram h = latency.copy();
            h.add(o.latency);
            return new Interval(requests + o.requests, c, bytes + o.bytes, h);
        }

        public long errors5xx() {
            return classes[5];
        }

        public static Interval empty() {
            return new Interval(0, new long[6], 0, new Histogram(1, MAX_MICROS, 2));
        }

        /** The histogram as text, for the edge's messages. */
        public String encodedLatency() {
            return encode(latency);
        }

        public static Histogram decodeLatency(String text) {
            return decode(text);
        }
    }

    /** A latency histogram as text (base64 of its compressed form): how the edge sends it and the store keeps it. */
    public static String encode(Histogram h) {
        ByteBuffer buf = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        int n = h.encodeIntoCompressedByteBuffer(buf);
        return Base64.getEncoder().encodeToString(java.util.Arrays.copyOf(buf.array(), n));
    }

    /** {@link #encode}'s text as a histogram again; an empty one when it cannot be read. */
    public static Histogram decode(String text) {
        try {
            return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(text)), MAX_MICROS);
        } catch (DataFormatException | RuntimeException e) {
            return new Histogram(1, MAX_MICROS, 2);
        }
    }

    private static final class Port {
        final LongAdder requests = new LongAdder();
        final LongAdder[] classes = {new LongAdder(), new LongAdder(), new LongAdder(), new LongAdder(), new LongAdder(), new LongAdder()};
        final LongAdder bytes = new LongAdder();
        final Recorder latency = new Recorder(1, MAX_MICROS, 2);
        /** Drains in a row that found no request. */
        int idle;
    }

    /** Drains in a row without a request after which a port's counters go (its app may be gone, its port reused). */
    private static final int IDLE_DRAINS = 30;

    private final ConcurrentHashMap<Integer, Port> ports = new ConcurrentHashMap<>();
    /** Intervals another process recorded (a separate edge's), added until the next {@link #drain}. */
    private final Map<Integer, Interval> received = new HashMap<>();

    /** A request to {@code port} answered {@code status} with {@code bytes} of body, {@code nanos} after its head came. */
    public void record(int port, int status, long bytes, long nanos) {
        Port p = ports.computeIfAbsent(port, k -> new Port());
        p.requests.increment();
        int c = status / 100;
        if (c >= 1 && c <= 5) p.classes[c].increment();
        p.bytes.add(bytes);
        p.latency.recordValue(Math.clamp(nanos / 1000, 1, MAX_MICROS));
    }

    /** Adds what another process recorded for {@code port}. */
    public synchronized void add(int port, Interval interval) {
        received.merge(port, interval, Interval::plus);
    }

    /** Every port's requests since the last drain, and forgets them; ports without a request are left out. One reader. */
    public synchronized Map<Integer, Interval> drain() {
        Map<Integer, Interval> out = new HashMap<>();
        ports.forEach((port, p) -> {
            long n = p.requests.sumThenReset();
            long[] c = new long[6];
            for (int i = 0; i < 6; i++) c[i] = p.classes[i].sumThenReset();
            long b = p.bytes.sumThenReset();
            Histogram h = p.latency.getIntervalHistogram();
            if (n > 0) {
                out.put(port, new Interval(n, c, b, h));
                p.idle = 0;
            } else {
                p.idle++;
            }
        });
        received.forEach((port, i) -> out.merge(port, i, Interval::plus));
        received.clear();
        // long idle: dropped (a request that comes just then may go uncounted, once)
        ports.entrySet().removeIf(e -> e.getValue().idle >= IDLE_DRAINS);
        return out;
    }
}
