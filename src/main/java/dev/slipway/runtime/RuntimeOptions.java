package dev.slipway.runtime;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Timings and labels of the runtime.
 *
 * @param stopGrace     SIGTERM to SIGKILL
 * @param healthTimeout how long a starting app has to answer HTTP
 * @param healthPoll    interval between health probes
 * @param backoffMin    first restart delay after a crash; doubles per consecutive crash
 * @param backoffMax    longest restart delay
 * @param stableAfter   an app up this long has its crash count reset
 * @param retireAfter   how long a replaced production app keeps running as a warm rollback target
 */
public record RuntimeOptions(Duration stopGrace, Duration healthTimeout, Duration healthPoll,
                             Duration backoffMin, Duration backoffMax, Duration stableAfter,
                             Duration retireAfter, List<String> regions, String instanceType) {

    public RuntimeOptions {
        regions = List.copyOf(regions);
    }

    public static RuntimeOptions defaults(List<String> regions) {
        return new RuntimeOptions(Duration.ofSeconds(10), Duration.ofSeconds(60), Duration.ofMillis(50),
                Duration.ofSeconds(1), Duration.ofSeconds(60), Duration.ofSeconds(30), Duration.ofMinutes(10),
                regions, "local");
    }

    /** Defaults overridden by SLIPWAY_STOP_GRACE_SECONDS, SLIPWAY_HEALTH_TIMEOUT_SECONDS, SLIPWAY_RETIRE_AFTER_SECONDS. */
    public static RuntimeOptions fromEnv(Map<String, String> env, List<String> regions) {
        RuntimeOptions d = defaults(regions);
        return d.withStopGrace(seconds(env, "SLIPWAY_STOP_GRACE_SECONDS", d.stopGrace))
                .withHealthTimeout(seconds(env, "SLIPWAY_HEALTH_TIMEOUT_SECONDS", d.healthTimeout))
                .withRetireAfter(seconds(env, "SLIPWAY_RETIRE_AFTER_SECONDS", d.retireAfter));
    }

    private static Duration seconds(Map<String, String> env, String name, Duration fallback) {
        String v = env.get(name);
        if (v == null || v.isBlank()) return fallback;
        try {
            long s = Long.parseLong(v.trim());
            if (s < 0) throw new NumberFormatException();
            return Duration.ofSeconds(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a whole number of seconds, got '" + v + "'");
        }
    }

    public RuntimeOptions withStopGrace(Duration d) {
        return new RuntimeOptions(d, healthTimeout, healthPoll, backoffMin, backoffMax, stableAfter, retireAfter, regions, instanceType);
    }

    public RuntimeOptions withHealthTimeout(Duration d) {
        return new RuntimeOptions(stopGrace, d, healthPoll, backoffMin, backoffMax, stableAfter, retireAfter, regions, instanceType);
    }

    public RuntimeOptions withBackoff(Duration min, Duration max, Duration stable) {
        return new RuntimeOptions(stopGrace, healthTimeout, healthPoll, min, max, stable, retireAfter, regions, instanceType);
    }

    public RuntimeOptions withRetireAfter(Duration d) {
        return new RuntimeOptions(stopGrace, healthTimeout, healthPoll, backoffMin, backoffMax, stableAfter, d, regions, instanceType);
    }

    public RuntimeOptions withRegions(List<String> r) {
        return new RuntimeOptions(stopGrace, healthTimeout, healthPoll, backoffMin, backoffMax, stableAfter, retireAfter, r, instanceType);
    }
}
