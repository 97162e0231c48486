package dev.slipway.monitoring;

import dev.slipway.runtime.RecoveryReport;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where the start's recovery is (adopting or starting again the apps of an earlier run, then publishing their routes),
 * for {@code /readyz}: an upgrade's script waits for {@code done} before it moves on to the next server.
 */
public final class StartRecovery {
    private final Clock clock;
    private final Instant began;
    private volatile Map<String, Object> state = Map.of("status", "running");

    public StartRecovery(Clock clock) {
        this.clock = clock;
        this.began = clock.instant();
    }

    /** Every app that should run was adopted or started (or its health deadline passed), and the edge serves the routes. */
    public void done(RecoveryReport report) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("status", "done");
        s.put("apps_adopted", report.adopted());
        s.put("apps_started", report.running().size() - report.adopted());
        s.put("apps_not_healthy", report.failing().size());
        s.put("took_ms", took());
        state = s;
    }

    /** The recovery stopped on an error (the server's log says which); the apps it did not reach are not started. */
    public void failed() {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("status", "failed");
        s.put("took_ms", took());
        state = s;
    }

    public Map<String, Object> status() {
        return state;
    }

    private long took() {
        return Duration.between(began, clock.instant()).toMillis();
    }
}
