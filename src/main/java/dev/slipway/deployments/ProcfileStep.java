package dev.slipway.deployments;

import dev.slipway.build.Artifact;
import dev.slipway.build.BuildSettings;
import dev.slipway.build.detect.Procfile;
import dev.slipway.build.detect.StartCommands;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;
import dev.slipway.runtime.AppRuntime;
import dev.slipway.runtime.AppSpec;
import dev.slipway.runtime.ReleaseCommands;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What a Procfile asks of a deployment between its build and its app's start. Its {@code release:} command
 * (database migrations, cache warming) runs once per deployment, where and as the app runs. Its failure fails the deployment, so production does
 * not move. A rollback runs a build that was released already and does not run it again.
 */
final class ProcfileStep {
    /** As long as a build command may run by default. */
    static final Duration TIMEOUT = BuildSettings.DEFAULT_COMMAND_TIMEOUT;

    private final AppRuntime runtime;
    private final Clock clock;

    ProcfileStep(AppRuntime runtime, Clock clock) {
        this.runtime = runtime;
        this.clock = clock;
    }

    /** Runs the release command, if any; says so first when the runtime will not run the other processes. */
    void run(Deployment d, Artifact artifact, AppSpec spec, LogSink log) throws InterruptedException {
        if (!runtime.runsWorkers()) {
            var workers = Procfile.workers(artifact.workDir()).keySet();
            if (!workers.isEmpty()) log.log(Level.WARNING, "The Procfile's processes " + String.join(", ", workers)
                    + " do not run on the " + runtime.instanceType() + " runtime; only web does");
        }
        if (d.rollbackOf() != null) return;
        Optional<List<String>> command = Procfile.release(artifact.workDir());
        if (command.isEmpty()) return;
        String shown = String.join(" ", command.get());
        ReleaseCommands releases = runtime.releaseCommands().orElseThrow(() -> new IllegalStateException(
                "the Procfile's release: command cannot run on the " + runtime.instanceType() + " runtime"));
        log.log(Level.INFO, "Running the release command: " + shown);
        Instant started = clock.instant();
        ReleaseCommands.Result result;
        try {
            // an image's commands are paths inside it, as written
            List<String> argv = artifact.isImage() ? command.get() : StartCommands.procfile(artifact.workDir(), command.get());
            result = releases.run(spec, argv, log, TIMEOUT);
        } catch (IOException e) {
            throw new IllegalStateException("the release command " + shown + " could not start: " + e.getMessage(), e);
        }
        if (!result.succeeded()) {
            String what = result.timedOut() ? "did not end within " + TIMEOUT.toMinutes() + " minutes"
                    : "failed (exit code " + result.exitCode() + ")";
            throw new IllegalStateException("the release command " + shown + " " + what + lastLines(result.lastLines()));
        }
        long seconds = Math.max(0, Duration.between(started, clock.instant()).toSeconds());
        log.log(Level.INFO, "Release command finished in " + seconds + " s");
    }

    private static String lastLines(List<String> lines) {
        if (lines.isEmpty()) return "; it printed nothing";
        return "; last output:\n" + String.join("\n", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
    }
}
