package dev.slipway.runtime;

import java.time.Duration;

/**
 * How an app's health is checked: at start (a deploy promotes it once it passes) and, when {@code interval} is set,
 * while it runs: {@code failures} failed checks in a row restart it, and the router sends it nothing while it fails.
 *
 * @param path      the path asked with GET
 * @param statusMin the lowest status that passes
 * @param statusMax the highest status that passes
 * @param interval  between checks while it runs; null: checked at start only
 * @param grace     after each (re)start, how long failed checks do not count (a slow warm-up)
 * @param failures  failed checks in a row that restart it
 */
public record HealthSpec(String path, int statusMin, int statusMax, Duration interval, Duration grace, int failures) {
    /** Any answer below 500 on {@code /}, at start only: an app that says nothing of its health. */
    public static final HealthSpec DEFAULT = new HealthSpec("/", 100, 499, null, Duration.ZERO, 3);

    public HealthSpec {
        if (path == null || !path.startsWith("/") || path.chars().anyMatch(c -> c <= ' ' || c == 0x7f)) {
            throw new IllegalArgumentException("a health check's path must start with / and hold no spaces: " + path);
        }
        if (statusMin < 100 || statusMax > 599 || statusMin > statusMax) {
            throw new IllegalArgumentException("bad status range " + statusMin + "-" + statusMax);
        }
        if (grace == null) grace = Duration.ZERO;
        if (failures < 1) throw new IllegalArgumentException("failures must be at least 1");
    }

    public boolean passes(int status) {
        return status >= statusMin && status <= statusMax;
    }

    /** The range as shown: {@code 200-399}. */
    public String range() {
        return statusMin + "-" + statusMax;
    }
}
