package dev.slipway.runtime;

import dev.slipway.logs.LogSink;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * Runs a deployment's one-off command (a Procfile's {@code release:}, a cron job's run) to its end, where and as its app runs: the
 * same cell, environment, database link and limits, without a port. A runtime that cannot run one has none.
 */
public interface ReleaseCommands {
    /**
     * @param lastLines what it printed last, for the failure reason
     * @param timedOut  it was killed at the time limit
     */
    record Result(int exitCode, boolean timedOut, List<String> lastLines) {
        public boolean succeeded() {
            return exitCode == 0 && !timedOut;
        }
    }

    /** Runs {@code argv} in the app's working directory; every line it prints goes to {@code log}, masked. */
    default Result run(AppSpec spec, List<String> argv, LogSink log, Duration timeout) throws IOException, InterruptedException {
        return run(spec, null, argv, log, timeout);
    }

    /**
     * As above, in a cell of its own named after {@code runId} (a cron run: several may run beside the deployment's
     * app and each other); null: the deployment's release cell.
     */
    Result run(AppSpec spec, String runId, List<String> argv, LogSink log, Duration timeout) throws IOException, InterruptedException;
}
