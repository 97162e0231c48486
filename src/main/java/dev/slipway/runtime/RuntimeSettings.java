package dev.slipway.runtime;

import dev.slipway.core.Env;
import dev.slipway.core.Setting;

import java.time.Duration;
import java.util.List;

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
 * @param stopAppsWithServer whether the server's stop stops the apps; by default they keep running and the next
 *                      start adopts them
 */
public record RuntimeSettings(Duration stopGrace, Duration healthTimeout, Duration healthPoll,
                             Duration backoffMin, Duration backoffMax, Duration stableAfter,
                             Duration retireAfter, List<String> regions, String instanceType, boolean stopAppsWithServer) {

    public RuntimeSettings {
        regions = List.copyOf(regions);
    }

    public static RuntimeSettings defaults(List<String> regions) {
        return new RuntimeSettings(Duration.ofSeconds(10), Duration.ofSeconds(60), Duration.ofMillis(50),
                Duration.ofSeconds(1), Duration.ofSeconds(60), Duration.ofSeconds(30), Duration.ofMinutes(10),
                regions, "local", false);
    }

    public static final Setting HEALTH_TIMEOUT = Setting.env("SLIPWAY_HEALTH_TIMEOUT_SECONDS", "`60`",
            "an app must answer HTTP on `$PORT` (any status < 500) within this");
    public static final Setting STOP_GRACE = Setting.env("SLIPWAY_STOP_GRACE_SECONDS", "`10`", "SIGTERM, then SIGKILL after this");
    public static final Setting STOP_APPS_WITH_SERVER = Setting.env("SLIPWAY_STOP_APPS_WITH_SERVER", "`false`",
            "`true`: the server's stop stops the apps too (they start again with it); by default they keep running and "
                    + "serving while the server is away, and the next start adopts them as they are");
    public static final Setting RETIRE_AFTER = Setting.env("SLIPWAY_RETIRE_AFTER_SECONDS", "`600`",
            "the previous production app keeps running until it has had no request for this long, so a rollback to it "
                    + "is a route switch; so does a deployment woken by a request to its own URL");

    /** The defaults, with the timings the environment sets (whole seconds); a bad value names its variable. */
    public static RuntimeSettings fromEnv(Env env, List<String> regions) {
        RuntimeSettings d = defaults(regions);
        return d.withStopGrace(seconds(env, STOP_GRACE, d.stopGrace))
                .withHealthTimeout(seconds(env, HEALTH_TIMEOUT, d.healthTimeout))
                .withRetireAfter(seconds(env, RETIRE_AFTER, d.retireAfter))
                .withStopAppsWithServer(env.bool(STOP_APPS_WITH_SERVER, false));
    }

    private static Duration seconds(Env env, Setting s, Duration fallback) {
        return Duration.ofSeconds(env.number(s, 0, Long.MAX_VALUE, fallback.toSeconds()));
    }

    public RuntimeSettings withStopGrace(Duration d) {
        return new RuntimeSettings(d, healthTimeout, healthPoll, backoffMin, backoffMax, stableAfter, retireAfter, regions, instanceType, stopAppsWithServer);
    }

    public RuntimeSettings withHealthTimeout(Duration d) {
        return new RuntimeSettings(stopGrace, d, healthPoll, backoffMin, backoffMax, stableAfter, retireAfter, regions, instanceType, stopAppsWithServer);
    }

    public RuntimeSettings withBackoff(Duration min, Duration max, Duration stable) {
        return new RuntimeSettings(stopGrace, healthTimeout, healthPoll, min, max, stable, retireAfter, regions, instanceType, stopAppsWithServer);
    }

    public RuntimeSettings withRetireAfter(Duration d) {
        return new RuntimeSettings(stopGrace, healthTimeout, healthPoll, backoffMin, backoffMax, stableAfter, d, regions, instanceType, stopAppsWithServer);
    }

    public RuntimeSettings withStopAppsWithServer(boolean stop) {
        return new RuntimeSettings(stopGrace, healthTimeout, healthPoll, backoffMin, backoffMax, stableAfter, retireAfter, regions,
                instanceType, stop);
    }

    public RuntimeSettings withRegions(List<String> r) {
        return new RuntimeSettings(stopGrace, healthTimeout, healthPoll, backoffMin, backoffMax, stableAfter, retireAfter, r, instanceType, stopAppsWithServer);
    }
}
