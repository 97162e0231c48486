package dev.slipway.source;

import org.eclipse.jgit.lib.ProgressMonitor;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * The end of a time budget. JGit's own timeout bounds each network read; this also stops a transfer
 * that keeps trickling, through the progress monitor JGit polls between objects.
 */
final class FetchDeadline implements ProgressMonitor {
    private final Clock clock;
    private final Instant end;
    private final Duration budget;

    FetchDeadline(Clock clock, Duration budget) {
        this.clock = clock;
        this.budget = budget;
        this.end = clock.instant().plus(budget);
    }

    boolean passed() {
        return !clock.instant().isBefore(end);
    }

    Duration budget() { return budget; }

    /** Seconds left for one network operation, rounded up, at least 1 (JGit reads 0 as "no timeout"). */
    int ioTimeoutSeconds() {
        long millis = Duration.between(clock.instant(), end).toMillis();
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, (millis + 999) / 1000));
    }

    @Override public boolean isCancelled() { return passed(); }
    @Override public void start(int totalTasks) { }
    @Override public void beginTask(String title, int totalWork) { }
    @Override public void update(int completed) { }
    @Override public void endTask() { }
    @Override public void showDuration(boolean enabled) { }
}
