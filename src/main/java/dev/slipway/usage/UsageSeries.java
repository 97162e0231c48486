package dev.slipway.usage;

import org.HdrHistogram.Histogram;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;

/**
 * A project's rows as series over buckets of {@code step} seconds: every server's rows in a bucket add up (memory and
 * processes of one instant as a sum across servers, the most of the bucket's instants), latency percentiles from their
 * merged histograms. A bucket without a row is left out: nothing of the project ran then.
 */
public final class UsageSeries {
    /** @param points {@code [epoch seconds, value]} each */
    public record Series(String name, String unit, List<List<Number>> points) {}

    private UsageSeries() {}

    public static List<Series> of(List<UsageSample> rows, Instant from, int step) {
        TreeMap<Long, List<UsageSample>> buckets = new TreeMap<>();
        for (UsageSample s : rows) {
            long b = from.getEpochSecond() + (s.at().getEpochSecond() - from.getEpochSecond()) / step * step;
            buckets.computeIfAbsent(b, k -> new ArrayList<>()).add(s);
        }
        List<Bucket> merged = buckets.entrySet().stream().map(e -> Bucket.of(e.getKey(), e.getValue())).toList();
        return List.of(
                series("cpu_seconds", "seconds", merged, b -> b.cpu),
                series("memory_bytes", "bytes", merged, b -> b.memory),
                series("memory_limit_bytes", "bytes", merged, b -> b.limit),
                series("processes", "processes", merged, b -> b.processes),
                series("oom_kills", "kills", merged, b -> b.oom),
                series("restarts", "restarts", merged, b -> b.restarts),
                series("requests", "requests", merged, b -> b.requests),
                series("errors_5xx", "requests", merged, b -> b.errors),
                series("bytes_out", "bytes", merged, b -> b.bytes),
                latency("latency_p50_ms", merged, 50),
                latency("latency_p95_ms", merged, 95),
                latency("latency_p99_ms", merged, 99));
    }

    private static Series series(String name, String unit, List<Bucket> buckets, ToDoubleFunction<Bucket> value) {
        return new Series(name, unit, buckets.stream().map(b -> List.<Number>of(b.at, value.applyAsDouble(b))).toList());
    }

    /** A percentile of the bucket's requests; buckets without a request are left out. */
    private static Series latency(String name, List<Bucket> buckets, double percentile) {
        return new Series(name, "milliseconds", buckets.stream().filter(b -> b.latency.getTotalCount() > 0)
                .map(b -> List.<Number>of(b.at, b.latency.getValueAtPercentile(percentile) / 1000.0)).toList());
    }

    private record Bucket(long at, double cpu, double memory, double limit, double processes, double oom, double restarts,
                          double requests, double errors, double bytes, Histogram latency) {
        static Bucket of(long at, List<UsageSample> rows) {
            TreeMap<Instant, long[]> instants = new TreeMap<>(); // memory, limit, processes, restarts summed across servers
            double cpu = 0, oom = 0, requests = 0, errors = 0, bytes = 0;
            Histogram h = UsageSample.emptyLatency();
            for (UsageSample s : rows) {
                cpu += s.cpuSeconds();
                oom += s.oomKills();
                requests += s.requests();
                errors += s.errors5xx();
                bytes += s.bytesOut();
                h.add(s.latency());
                long[] i = instants.computeIfAbsent(s.at(), k -> new long[4]);
                i[0] += s.memoryBytes();
                i[1] += s.memoryLimitBytes();
                i[2] += s.processes();
                i[3] += s.restarts();
            }
            long[] most = new long[4];
            for (long[] i : instants.values()) for (int k = 0; k < 4; k++) most[k] = Math.max(most[k], i[k]);
            return new Bucket(at, cpu, most[0], most[1], most[2], oom, most[3], requests, errors, bytes, h);
        }
    }
}
