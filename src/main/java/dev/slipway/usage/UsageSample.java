package dev.slipway.usage;

import org.HdrHistogram.Histogram;

import java.time.Instant;

/**
 * What one project's apps on one server used and served over a step.
 *
 * @param cpuSeconds       CPU time used in the step
 * @param memoryBytes      memory charged at the step's end (the most of its samples, rolled up)
 * @param memoryLimitBytes the sum of its processes' limits
 * @param oomKills         kills for going over a memory limit in the step
 * @param restarts         its processes' crashes in a row, at the step's end
 * @param latency          microseconds, from the request's head to its answer's last byte
 */
public record UsageSample(String projectId, Instant at, int stepSeconds, double cpuSeconds, long memoryBytes,
                          long memoryLimitBytes, int processes, long oomKills, int restarts, long requests, long errors5xx,
                          long bytesOut, Histogram latency) {
    public static Histogram emptyLatency() {
        return new Histogram(1, 3_600_000_000L, 2);
    }
}
