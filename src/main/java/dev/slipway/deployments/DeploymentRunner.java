package dev.slipway.deployments;

import dev.slipway.build.Artifact;
import dev.slipway.build.ArtifactStore;
import dev.slipway.build.Builder;
import dev.slipway.api.AppUrls;
import dev.slipway.databases.DatabaseService;
import dev.slipway.jobs.Job;
import dev.slipway.jobs.JobRunner;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;
import dev.slipway.logs.LogStore;
import dev.slipway.projects.Project;
import dev.slipway.projects.ProjectStore;
import dev.slipway.router.RouteTable;
import dev.slipway.router.Target;
import dev.slipway.runtime.AppSpec;
import dev.slipway.runtime.InstanceType;
import dev.slipway.runtime.Instance;
import dev.slipway.runtime.RetiringPool;
import dev.slipway.runtime.AppRuntime;
import dev.slipway.source.FetchedSource;
import dev.slipway.source.GitFetcher;
import dev.slipway.source.UploadStore;
import dev.slipway.source.Workspaces;
import dev.slipway.source.ZipExtractor;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Runs one deployment: source → build → start → health → route → live. A rollback skips the first
 * two and starts the target's artifact. Each step is a transition of the deployment's state machine
 * with its log entry; any failure ends it {@code failed} with the cause in the log.
 */
public final class DeploymentRunner implements JobRunner {
    private static final Logger LOG = LoggerFactory.getLogger(DeploymentRunner.class);
    private static final int MAX_ATTEMPTS = 3;

    /** Everything a deployment run touches. */
    public record Parts(Jdbi jdbi, DeploymentStore deployments, DeploymentService service, ProjectStore projects,
                        MigrationProgress migrations, LogStore logs, GitFetcher git, UploadStore uploads,
                        ZipExtractor zips, Builder builder, ArtifactStore artifacts, int keepArtifacts,
                        AppRuntime runtime, RouteTable routes, RetiringPool retiring, AppUrls urls, Path workspaces,
                        Clock clock, DatabaseService databases) {}

    private static final class Cancelled extends RuntimeException {
        Cancelled() {
            super("Deployment cancelled", null, false, false);
        }
    }

    private final Parts p;
    private final Promotion promotion;

    public DeploymentRunner(Parts parts) {
        this.p = parts;
        this.promotion = new Promotion(parts.jdbi(), parts.deployments(), parts.projects(), parts.migrations());
    }

    @Override
    public void run(Job job, Lease lease) {
        Deployment d = p.deployments().find(job.subjectId()).orElseThrow();
        if (d.status().finished()) return;
        Project project = p.projects().find(d.projectId()).orElseThrow();
        RunEnvironment run = RunEnvironment.of(d, p.service(), p.projects(), p.databases());
        Map<String, String> env = run.env();
        Set<String> secretValues = run.secretValues();
        LogSink log = sink(d, secretValues);
        try {
            if (job.attempts() > MAX_ATTEMPTS) {
                throw new IllegalStateException("the run was interrupted " + (job.attempts() - 1)
                        + " times (server restarts); giving up");
            }
            if (job.attempts() > 1) {
                log.log(Level.WARNING, "Resuming after the server running this deployment stopped (attempt " + job.attempts() + ")");
                int killed = BuildProcesses.kill(d.id());
                if (killed > 0) log.log(Level.INFO, "Stopped " + killed + " build process(es) left by the interrupted attempt");
            }
            startMigration(d);
            p.databases().prepare(project.id(), log);
            Artifact artifact = d.rollbackOf() != null ? reuse(d, log) : builtBeforeCrash(d, log);
            if (artifact == null) artifact = build(d, project, env, secretValues, log, lease);
            else if (d.rollbackOf() != null) move(d, DeploymentStatus.QUEUED, DeploymentStatus.DEPLOYING, Level.INFO,
                    "Reusing the build " + artifact.id() + " of " + d.rollbackOf() + " (no rebuild)");
            if (!lease.held()) return;
            Target target = start(d, project, artifact, env, secretValues, log);
            String url = p.urls().production(project.name());
            p.routes().setDeployment(project.name(), d.shortId(), target);
            p.logs().flush(); // the run's lines are stored before anyone sees it live
            var previous = promoteAndRoute(d, project, target, url);
            if (project.domain() != null) p.routes().setDomain(project.domain(), project.name());
            p.retiring().reinstate(d.id());
            previous.ifPresent(prev -> p.retiring().retire(instanceOwner(prev)));
            pruneArtifacts(project.id());
        } catch (Cancelled c) {
            fail(d.id(), "Deployment cancelled");
        } catch (Exception e) {
            // read and clear the interrupt first: on an interrupted virtual thread every store call fails
            // (the PostgreSQL driver's socket is closed by the interrupt)
            boolean interrupted = Thread.interrupted() || e instanceof InterruptedException;
            if (!lease.held() && !interrupted) {
                LOG.info("deployment {} lost its lease: {}", d.id(), e.toString());
                return;
            }
            if (cancelRequested(d.id())) {
                fail(d.id(), "Deployment cancelled");
                return;
            }
            if (interrupted) {
                // the server is stopping: the job keeps its lease and is resumed after the restart
                Thread.currentThread().interrupt();
                return;
            }
            fail(d.id(), message(e));
        } finally {
            if (d.rollbackOf() == null) Workspaces.delete(p.workspaces().resolve(d.id()));
        }
    }

    /**
     * Makes the deployment production in the store and in the router. The route switches first: whoever
     * learns that it is live (a long-poll answered at the commit, a webhook) must reach the new app, not
     * the old one. A failed commit puts the previous route back.
     */
    private Optional<String> promoteAndRoute(Deployment d, Project project, Target target, String url) {
        var before = p.routes().production(project.name());
        p.routes().setProduction(project.name(), target);
        try {
            return promotion.promote(p.deployments().find(d.id()).orElseThrow(), url);
        } catch (RuntimeException e) {
            before.ifPresentOrElse(t -> p.routes().setProduction(project.name(), t),
                    () -> p.routes().removeProduction(project.name()));
            throw e;
        }
    }

    private Artifact reuse(Deployment d, LogSink log) {
        var found = p.artifacts().find(d.artifactId());
        if (found.isEmpty() || !found.get().root().toFile().isDirectory()) {
            log.log(Level.WARNING, "The build " + d.artifactId() + " was pruned; rebuilding commit "
                    + (d.commitSha() == null ? "(unknown)" : d.commitSha()));
            return null;
        }
        return found.get();
    }

    private Artifact build(Deployment d, Project project, Map<String, String> env, Set<String> secretValues,
                           LogSink log, Lease lease) throws InterruptedException {
        if (d.status() == DeploymentStatus.QUEUED) {
            move(d, DeploymentStatus.QUEUED, DeploymentStatus.BUILDING, Level.INFO, "Build started");
        }
        checkCancel(d.id());
        Path workspace = p.workspaces().resolve(d.id());
        Workspaces.delete(workspace);
        Path source;
        String sha = d.commitSha();
        if ("zip".equals(project.source())) {
            String uploadId = d.uploadId() != null ? d.uploadId() : latestUpload(project.id());
            var upload = p.uploads().find(uploadId).orElseThrow(() -> new IllegalStateException("upload " + uploadId + " is gone"));
            log.log(Level.INFO, "Extracting upload " + upload.id() + " (" + upload.sizeBytes() + " bytes, sha256 " + upload.sha256().substring(0, 12) + "…)");
            source = p.zips().extract(upload.path(), workspace);
        } else {
            FetchedSource fetched = p.git().fetch(project.source(), project.repo(), project.branch(), sha, workspace, log);
            p.deployments().recordSource(d.id(), fetched.commitSha(), fetched.commitMessage());
            sha = fetched.commitSha();
            source = fetched.dir();
        }
        checkCancel(d.id());
        Instant started = p.clock().instant();
        // the build's commands carry the deployment's id, so a cancel (or the next attempt after a crash) finds them
        Map<String, String> buildEnv = new java.util.LinkedHashMap<>(env);
        buildEnv.put(BuildProcesses.MARKER, d.id());
        CountDownLatch built = new CountDownLatch(1);
        Thread watcher = cancelWatcher(d.id(), built, log);
        Artifact artifact;
        try {
            artifact = p.builder().build(project.id(), sha, source, project.framework(), buildEnv, secretValues, log);
        } finally {
            built.countDown();
        }
        watcher.join(Duration.ofSeconds(5));
        if (Thread.interrupted() || !lease.held()) {
            throw new InterruptedException("build interrupted");
        }
        if (d.migrationId() != null) p.migrations().built(d.migrationId(), artifact.framework());
        int seconds = (int) Math.max(0, Duration.between(started, p.clock().instant()).toSeconds());
        String message = "Build finished in " + seconds + " s; starting the app";
        if (p.deployments().recordBuild(d.id(), artifact.id(), seconds, message)) moved(d, Level.INFO, message);
        else notMoved(d, DeploymentStatus.BUILDING, DeploymentStatus.DEPLOYING);
        return artifact;
    }

    private Target start(Deployment d, Project project, Artifact artifact, Map<String, String> env,
                         Set<String> secretValues, LogSink log) {
        if (artifact.isStatic()) {
            log.log(Level.INFO, "Static site: served from the build by the router");
            return new Target.StaticSite(artifact.staticRoot(), artifact.spaFallback());
        }
        if (d.rollbackOf() != null) {
            // the target may itself be a rollback served by an earlier deployment's process
            String owner = instanceOwner(d.rollbackOf());
            var warm = p.runtime().get(owner);
            if (warm.isPresent()) {
                p.retiring().reinstate(owner);
                log.log(Level.INFO, "Switching to the still-running app of " + owner + " (pid " + warm.get().pid() + ")");
                return new Target.Upstream(warm.get().port());
            }
        }
        Instance instance;
        try {
            instance = p.runtime().start(new AppSpec(d.id(), project.id(), artifact, env, secretValues,
                    InstanceType.of(d.instanceType())), log);
        } catch (dev.slipway.runtime.StartFailedException e) {
            throw new IllegalStateException("health check failed: " + e.getMessage(), e);
        }
        log.log(Level.INFO, "App is healthy on its port (pid " + instance.pid() + ")");
        return new Target.Upstream(instance.port());
    }

    /** The deployment whose process serves {@code deploymentId}: itself, or the target it rolled back to. */
    private String instanceOwner(String deploymentId) {
        if (p.runtime().get(deploymentId).isPresent()) return deploymentId;
        return p.deployments().find(deploymentId).map(Deployment::rollbackOf)
                .filter(t -> p.runtime().get(t).isPresent()).orElse(deploymentId);
    }

    private void startMigration(Deployment d) {
        if (d.migrationId() != null) p.migrations().started(d.migrationId());
    }

    private void move(Deployment d, DeploymentStatus from, DeploymentStatus to, Level level, String message) {
        if (p.deployments().transition(d.id(), from, to, level, message)) moved(d, level, message);
        else notMoved(d, from, to);
    }

    /** A migration's first deployment also writes its steps to the migration's log. */
    private void moved(Deployment d, Level level, String message) {
        if (d.migrationId() != null) p.logs().append(d.migrationId(), level, message);
    }

    /** The transition did not happen: cancelled, or resumed after a crash past this step. */
    private void notMoved(Deployment d, DeploymentStatus from, DeploymentStatus to) {
        if (cancelRequested(d.id())) throw new Cancelled();
        Deployment now = p.deployments().find(d.id()).orElseThrow();
        if (now.status() == to) return;
        if (now.status() == DeploymentStatus.FAILED) throw new Cancelled();
        throw new IllegalStateException("deployment " + d.id() + " is " + now.status().label() + ", expected " + from.label());
    }

    private void fail(String id, String cause) {
        p.logs().flush(); // the run's lines are stored before anyone sees it failed (a failure event carries the last ones)
        Deployment failed = p.jdbi().inTransaction(h -> {
            Deployment d = p.deployments().find(h, id).orElseThrow();
            if (!d.status().finished()) {
                p.deployments().transition(h, id, d.status(), DeploymentStatus.FAILED, Level.ERROR, "Deployment failed: " + cause);
            }
            if (d.migrationId() != null) p.migrations().failed(h, d.migrationId(), cause);
            return d;
        });
        try {
            p.runtime().stop(id);
        } catch (RuntimeException e) {
            LOG.warn("stopping failed deployment {}: {}", id, e.toString());
        }
        // a failed migration leaves nothing behind that it made (housekeeping retries after a crash here)
        if (failed.migrationId() != null) p.databases().release(failed.projectId(), failed.migrationId());
    }

    private void checkCancel(String id) {
        if (cancelRequested(id)) throw new Cancelled();
    }

    private boolean cancelRequested(String id) {
        return p.deployments().find(id).map(Deployment::cancelRequested).orElse(false);
    }

    /**
     * Kills the build's commands when a cancel is requested, until the build ends (a failed step may be
     * followed by a fallback step). Neither thread is interrupted: an interrupt breaks the store
     * connection a virtual thread is using, and leaves the worker unable to take the next job.
     */
    private Thread cancelWatcher(String id, CountDownLatch built, LogSink log) {
        return Thread.ofVirtual().name("cancel-watch-" + id).start(() -> {
            boolean cancelling = false;
            try {
                // polling the store for a cancel request, every 500 ms until the build ends
                while (!built.await(cancelling ? 100 : 500, TimeUnit.MILLISECONDS)) {
                    if (!cancelling && cancelRequested(id)) {
                        cancelling = true;
                        log.log(Level.WARNING, "Cancel requested: stopping the build");
                    }
                    if (cancelling) BuildProcesses.kill(id);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                LOG.warn("watching deployment {} for a cancel failed: {}", id, e.toString());
            }
        });
    }

    /**
     * A deployment resumed after a crash past its build ({@code deploying}, artifact recorded) starts that
     * artifact again instead of building anew: the runtime may already run it again since its recovery.
     */
    private Artifact builtBeforeCrash(Deployment d, LogSink log) {
        if (d.status() != DeploymentStatus.DEPLOYING || d.artifactId() == null) return null;
        var found = p.artifacts().find(d.artifactId());
        if (found.isEmpty() || !found.get().root().toFile().isDirectory()) return null;
        log.log(Level.INFO, "The build " + d.artifactId() + " finished before the interruption; starting it");
        return found.get();
    }

    private String latestUpload(String projectId) {
        return p.jdbi().withHandle(h -> h.createQuery("""
                        SELECT upload_id FROM deployments WHERE project_id = :p AND upload_id IS NOT NULL
                        ORDER BY created_at DESC LIMIT 1""")
                .bind("p", projectId).mapTo(String.class).findOne()
                .orElseThrow(() -> new IllegalStateException("this zip project has no upload to deploy; pass upload_id")));
    }

    private void pruneArtifacts(String projectId) {
        try {
            p.artifacts().prune(projectId, p.keepArtifacts(), new HashSet<>(p.deployments().liveArtifactIds(projectId)));
        } catch (RuntimeException e) {
            LOG.warn("pruning artifacts of {} failed: {}", projectId, e.toString());
        }
    }

    /** The deployment's log; a migration's first deployment also writes every line to the migration's log. */
    private LogSink sink(Deployment d, Set<String> secretValues) {
        LogSink own = p.logs().sink(d.id(), secretValues);
        if (d.migrationId() == null) return own;
        LogSink migration = p.logs().sink(d.migrationId(), secretValues);
        return (level, message) -> {
            own.log(level, message);
            migration.log(level, message);
        };
    }

    private static String message(Exception e) {
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
    }
}
