package dev.slipway.cron;

import dev.slipway.appconfig.RepoConfig;
import dev.slipway.build.Artifact;
import dev.slipway.build.ArtifactStore;
import dev.slipway.databases.DatabaseService;
import dev.slipway.deployments.Deployment;
import dev.slipway.deployments.DeploymentService;
import dev.slipway.deployments.DeploymentStore;
import dev.slipway.deployments.RunEnvironment;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;
import dev.slipway.logs.LogStore;
import dev.slipway.projects.ProjectStore;
import dev.slipway.runtime.AppSpec;
import dev.slipway.runtime.InstanceType;
import dev.slipway.runtime.ReleaseCommands;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Runs one cron run to its end, in a cell of its own made as its deployment's app's are (the build, its variables and
 * database link, its instance type's limits), and records how it ended. A deploy that replaces the deployment meanwhile
 * does not touch it: it finishes on the build it started on.
 */
public final class CronRunner {
    /** As long as a run may take before it is stopped (its command's whole life). */
    public static final Duration TIMEOUT = Duration.ofMinutes(30);

    /** Where a run's deployment, build and environment are read from. */
    public record Parts(DeploymentStore deployments, DeploymentService service, ProjectStore projects, DatabaseService databases,
                        ArtifactStore artifacts, LogStore logs, Optional<ReleaseCommands> commands, CronRunStore runs) {}

    private final Parts parts;
    private final Duration timeout;

    public CronRunner(Parts parts, Duration timeout) {
        this.parts = parts;
        this.timeout = timeout;
    }

    /** Runs it on the calling thread; returns once it is recorded as ended. */
    public void run(CronJob job, CronRun run) {
        Optional<Deployment> d = parts.deployments().find(job.deploymentId());
        Optional<Artifact> artifact = d.flatMap(x -> Optional.ofNullable(x.artifactId())).flatMap(parts.artifacts()::find);
        if (d.isEmpty() || artifact.isEmpty() || artifact.get().isStatic()) {
            end(run, null, "its deployment's build is no longer here");
            return;
        }
        if (parts.commands().isEmpty()) {
            end(run, null, "this server's runtime does not run cron jobs");
            return;
        }
        RunEnvironment env = RunEnvironment.of(d.get(), parts.service(), parts.projects(), parts.databases());
        LogSink log = parts.logs().sink(run.id(), env.secretValues());
        AppSpec spec = RepoConfig.ofJson(parts.artifacts().config(artifact.get().id())).apply(new AppSpec(d.get().id(),
                job.projectId(), artifact.get(), env.env(), env.secretValues(), InstanceType.of(d.get().instanceType()), env.database()));
        String shown = job.command().getLast();
        log.log(Level.INFO, "Running " + job.name() + " (" + job.schedule() + ") for " + run.scheduledFor() + ": " + shown);
        try {
            ReleaseCommands.Result result = parts.commands().get().run(spec, run.id(), job.command(), log, timeout);
            if (result.timedOut()) {
                log.log(Level.ERROR, job.name() + " did not end within " + timeout.toMinutes() + " minutes: stopped");
                end(run, result.exitCode(), "did not end within " + timeout.toMinutes() + " minutes");
            } else {
                log.log(result.succeeded() ? Level.SUCCESS : Level.ERROR, job.name() + " ended with exit code " + result.exitCode());
                end(run, result.exitCode(), result.succeeded() ? null : "exit code " + result.exitCode());
            }
        } catch (IOException e) {
            log.log(Level.ERROR, job.name() + " could not start: " + e.getMessage());
            end(run, null, "could not start: " + e.getMessage());
        } catch (InterruptedException e) {
            log.log(Level.ERROR, job.name() + " was stopped: the server is stopping");
            end(run, null, "the server stopped during the run");
            Thread.currentThread().interrupt();
        }
    }

    private void end(CronRun run, Integer exitCode, String reason) {
        parts.logs().flush();
        parts.runs().finish(run.id(), exitCode, reason);
    }
}
