package dev.slipway.deployments;

import dev.slipway.appconfig.RepoConfig;
import dev.slipway.build.Artifact;
import dev.slipway.build.ArtifactStore;
import dev.slipway.images.ImageBuilder;
import dev.slipway.build.oci.ImageName;
import dev.slipway.build.oci.Registries;
import dev.slipway.images.pull.ImagePull;
import dev.slipway.projects.ProjectInput;
import dev.slipway.build.BuildRequest;
import dev.slipway.build.Builder;
import dev.slipway.api.AppUrls;
import dev.slipway.databases.DatabaseService;
import dev.slipway.jobs.Job;
import dev.slipway.jobs.JobRunner;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;
import dev.slipway.logs.LogStore;
import dev.slipway.projects.Project;
import dev.slipway.projects.PreviewAddress;
import dev.slipway.projects.ProjectGitStore;
import dev.slipway.projects.ProjectStore;
import dev.slipway.router.RouteTable;
import dev.slipway.router.Target;
import dev.slipway.runtime.AppSpec;
import dev.slipway.runtime.InstanceType;
import dev.slipway.runtime.Instance;
import dev.slipway.runtime.RetiringPool;
import dev.slipway.runtime.AppRuntime;
import dev.slipway.runtime.StartFailedException;
import dev.slipway.source.GitFetcher;
import dev.slipway.source.UploadStore;
import dev.slipway.source.Workspaces;
import dev.slipway.source.ZipExtractor;
import java.util.LinkedHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Runs one deployment: source → build → release command → start → health → route → live. A rollback skips
 * the first three and starts the target's artifact. Each step is a transition of the deployment's state machine
 * with its log entry; any failure ends it {@code failed} with the cause in the log.
 */
public final class DeploymentRunner implements JobRunner {
    private static final Logger LOG = LoggerFactory.getLogger(DeploymentRunner.class);
    private static final int MAX_ATTEMPTS = 3;

    /** Everything a deployment run touches. */
    public record Parts(Records records, Sources sources, Builds builds, Serving serving, WarmSwitches switches,
                        Clock clock) {}

    /** The records a deployment's run reads and writes. */
    public record Records(DeploymentStore deployments, DeploymentService service, ProjectStore projects,
                          MigrationProgress migrations, LogStore logs, DatabaseService databases) {}

    /** Where a build's source comes from, and the directory of the workspaces it is put in. */
    /** @param gitSettings the projects' git credentials, for private repositories */
    public record Sources(GitFetcher git, ProjectGitStore gitSettings, UploadStore uploads, ZipExtractor zips, Path workspaces) {}

    /**
     * The builder, the builds kept per project, what makes a build an OCI image (when a registry is set), and what
     * makes a prebuilt image an artifact.
     */
    public record Builds(Builder builder, ArtifactStore artifacts, int keep, ImageBuilder images, ImagePull pulls) {}

    /** What serves a deployment once built. */
    public record Serving(AppRuntime runtime, RouteTable routes, RetiringPool retiring, AppUrls urls) {}

    private final Parts p;
    private final Records records;
    private final Serving serving;
    private final Promotion promotion;
    private final CancelWatch cancels;
    private final Checkout checkout;
    private final ProcfileStep procfile;

    public DeploymentRunner(Parts parts) {
        this.p = parts;
        this.serving = parts.serving();
        this.records = parts.records();
        this.promotion = new Promotion(records.deployments(), records.projects(), records.migrations());
        this.cancels = new CancelWatch(records.deployments());
        this.checkout = new Checkout(parts.sources(), records.deployments());
        this.procfile = new ProcfileStep(serving.runtime(), parts.clock());
    }

    @Override
    public void run(Job job, Lease lease) {
        Deployment d = records.deployments().find(job.subjectId()).orElseThrow();
        if (d.status().finished()) {
            p.switches().abandon(d.id()); // cancelled between the rollback's POST, which switched, and this run
            return;
        }
        Optional<Project> found = records.projects().find(d.projectId());
        if (found.isEmpty()) { // its project is being deleted: its teardown is queued behind this job
            fail(d.id(), "Deployment cancelled: its project is being deleted");
            return;
        }
        Project project = found.get();
        WarmSwitches.Switch warm = p.switches().take(d, project, job.attempts());
        boolean promoted = false;
        Artifact built = null;
        String failure = null; // recorded after a warm rollback's route is put back: whoever sees it failed reaches the old app
        RunEnvironment run = RunEnvironment.of(d, records.service(), records.projects(), records.databases());
        LogSink log = sink(d, run.secretValues());
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
            if (d.getsDatabase()) records.databases().prepare(project.id(), log);
            Artifact artifact = reusable(d, log);
            if (artifact == null) artifact = built = build(d, project, run, log, lease);
            else if (d.reusesBuildOf() != null) move(d, DeploymentStatus.QUEUED, DeploymentStatus.DEPLOYING, Level.INFO,
                    "Reusing the build " + artifact.id() + " of " + d.reusesBuildOf() + " (no rebuild)");
            if (!lease.held()) return;
            p.builds().images().ensure(artifact, log);
            // a static site is served by the router: no process, no Procfile
            RepoConfig config = RepoConfig.ofJson(p.builds().artifacts().config(artifact.id()));
            AppSpec spec = artifact.isStatic() ? null : config.apply(new AppSpec(d.id(), project.id(), artifact, run.env(),
                    run.secretValues(), TypeFromFile.choose(d, project, config, records.deployments(), log), run.database()));
            if (spec != null) config.warnSiteRulesOfApp(log);
            // the project's own settings win over its file's
            if (spec != null && project.run().health() != null) spec = spec.withHealth(project.run().health());
            if (spec != null) {
                int replicas = ReplicaScaling.replicas(project, config);
                var tier = records.deployments().tierOf(project.id());
                if (replicas > tier.maxReplicas()) {
                    throw new StartFailedException("Cannot run " + replicas + " instances of web" + (project.run().replicas() == null
                            ? " (slipway.toml [run] replicas)" : "") + ": the " + tier.label() + " tier runs at most " + tier.maxReplicas());
                }
                for (var volume : spec.volumes()) {
                    if (volume.sizeMb() > tier.maxVolumeMb()) {
                        throw new StartFailedException("Cannot make the volume " + volume.name() + " of " + volume.sizeMb()
                                + " MB (slipway.toml [[volumes]] size_mb): the " + tier.label() + " tier's volumes hold at most "
                                + tier.maxVolumeMb() + " MB");
                    }
                }
                String problem = config.replicaProblem(replicas);
                if (problem != null) throw new StartFailedException("Cannot run " + replicas + " instances: " + problem);
                spec = spec.withReplicas(replicas);
            }
            if (spec != null) procfile.run(d, artifact, spec, log);
            cancels.check(d.id());
            Target target = start(d, artifact, config, spec, log);
            String url = serving.urls().production(project.name());
            records.logs().flush(); // the run's lines are stored before anyone sees it live
            if (d.preview()) {
                serving.routes().setDeployment(project.name(), d.shortId(), target);
                promotion.preview(d, serving.urls().deployment(project.name(), d.shortId()));
                promoted = true;
                routeBranch(d, project, target, log);
                return;
            }
            var previous = promoteAndRoute(d, project, target, url, warm == null ? null : warm.before());
            promoted = true;
            // read again: the domain may have been changed or verified while this deployment built
            records.projects().find(project.id()).ifPresent(now -> serving.routes().syncDomain(now.name(), now.servedDomain()));
            serving.retiring().reinstate(d.id());
            if (warm != null) {
                serving.runtime().redirectOutput(warm.owner(), log);
                log.log(Level.INFO, "The app of " + warm.owner() + " writes its output to this deployment's log from now on");
            }
            previous.ifPresent(prev -> {
                String owner = p.switches().instanceOwner(prev);
                List<String> stopped = serving.retiring().replaced(owner);
                if (!stopped.isEmpty()) {
                    log.log(Level.INFO, "The previous deployment " + owner + " stays warm for an instant rollback; older ones "
                            + "stopped: " + String.join(", ", stopped));
                }
            });
            pruneArtifacts(project.id());
        } catch (CancelWatch.Cancelled c) {
            failure = "Deployment cancelled";
        } catch (Exception e) {
            // read and clear the interrupt first: on an interrupted virtual thread every store call fails
            // (the PostgreSQL driver's socket is closed by the interrupt)
            boolean interrupted = Thread.interrupted() || e instanceof InterruptedException;
            if (!lease.held() && !interrupted) {
                LOG.info("deployment {} lost its lease: {}", d.id(), e.toString());
                return;
            }
            if (cancels.requested(d.id())) {
                failure = "Deployment cancelled";
                return;
            }
            if (interrupted) {
                // the server is stopping: the job keeps its lease and is resumed after the restart
                Thread.currentThread().interrupt();
                return;
            }
            failure = message(e);
        } finally {
            if (warm != null && !promoted) p.switches().undo(warm);
            if (failure != null) fail(d.id(), failure);
            if (d.reusesBuildOf() == null) Workspaces.delete(checkout.workspace(d.id()));
            // what the build put off for the build cache is done once its app started, off the deploy's path
            if (built != null && !Thread.currentThread().isInterrupted()) p.builds().builder().started(built.id());
        }
    }

    /** A live preview also answers at its branch's address, {@code <project>-git-<branch>}, unless that is taken. */
    private void routeBranch(Deployment d, Project project, Target target, LogSink log) {
        if (d.branch() == null) return;
        String label = PreviewAddress.label(project.name(), d.branch());
        if (!records.projects().previewLabelFree(label)) {
            log.log(Level.WARNING, "The branch address " + label + " reads as another project's address: the preview is served at its own only");
            return;
        }
        serving.routes().setDeployment(project.name(), PreviewAddress.suffix(project.name(), d.branch()), target);
        log.log(Level.INFO, "Branch " + d.branch() + " is served at " + serving.urls().branchLabel(label));
    }

    /**
     * Makes the deployment production in the store and in the router, where it also gets its own address. The route
     * switches first: whoever
     * learns that it is live (a long-poll answered at the commit, a webhook) must reach the new app, not
     * the old one. A failed commit puts the previous route back: {@code switchedFrom} when a warm rollback
     * switched it already (null otherwise).
     */
    private Optional<String> promoteAndRoute(Deployment d, Project project, Target target, String url,
                                             Optional<Target> switchedFrom) {
        var before = switchedFrom != null ? switchedFrom : serving.routes().production(project.name());
        String previousOwner = project.productionDeploymentId() == null ? null : p.switches().instanceOwner(project.productionDeploymentId());
        Target production = target;
        if (!(target instanceof Target.StaticSite)) {
            String owner = serving.runtime().get(d.id()).isPresent() || d.rollbackOf() == null ? d.id() : p.switches().instanceOwner(d.rollbackOf());
            production = serving.runtime().productionAddresses().map(a -> a.switchProduction(project.id(), owner))
                    .<Target>map(i -> Target.app(i.host(), i.ports())).orElse(target);
        }
        serving.routes().setLive(project.name(), d.shortId(), target, production);
        try {
            return promotion.promote(records.deployments().find(d.id()).orElseThrow(), url);
        } catch (RuntimeException e) {
            before.ifPresentOrElse(t -> serving.routes().setProduction(project.name(), t),
                    () -> serving.routes().removeProduction(project.name()));
            if (previousOwner != null && production != target && serving.runtime().get(previousOwner).isPresent()) {
                serving.runtime().productionAddresses().ifPresent(a -> a.switchProduction(project.id(), previousOwner));
            }
            throw e;
        }
    }

    /**
     * The build this deployment starts without building anew, or null: a rollback's target build (unless
     * pruned), or, resumed after a crash past its build ({@code deploying}, artifact recorded), its own build,
     * which the runtime may already run again since its recovery.
     */
    private Artifact reusable(Deployment d, LogSink log) {
        boolean rollback = d.reusesBuildOf() != null;
        if (!rollback && (d.status() != DeploymentStatus.DEPLOYING || d.artifactId() == null)) return null;
        var found = p.builds().artifacts().find(d.artifactId()).filter(a -> a.root().toFile().isDirectory());
        if (found.isEmpty()) {
            if (rollback) log.log(Level.WARNING, "The build " + d.artifactId() + " was pruned; rebuilding commit "
                    + (d.commitSha() == null ? "(unknown)" : d.commitSha()));
            return null;
        }
        if (!rollback) log.log(Level.INFO, "The build " + d.artifactId() + " finished before the interruption; starting it");
        return found.get();
    }

    private Artifact build(Deployment d, Project project, RunEnvironment run, LogSink log, Lease lease)
            throws InterruptedException {
        if (d.status() == DeploymentStatus.QUEUED) {
            move(d, DeploymentStatus.QUEUED, DeploymentStatus.BUILDING, Level.INFO, "Build started");
        }
        cancels.check(d.id());
        boolean image = ProjectInput.IMAGE.equals(project.source());
        Checkout.Source source = image ? null : checkout.fetch(d, project, log);
        cancels.check(d.id());
        RepoConfig repo = image ? RepoConfig.NONE : RepoConfig.read(source.dir(), project.rootDirectory(), log);
        Instant started = p.clock().instant();
        // the build's commands carry the deployment's id, so a cancel (or the next attempt after a crash) finds them
        Map<String, String> buildEnv = new LinkedHashMap<>(repo.envBelow(run.env()));
        buildEnv.put(BuildProcesses.MARKER, d.id());
        CancelWatch.Build watch = cancels.duringBuild(d.id(), log);
        Artifact artifact;
        try {
            artifact = image ? pull(d, project, run, log) : p.builds().builder().build(new BuildRequest(project.accountId(),
                    project.id(), source.commitSha(), source.dir(), repo.framework(project.framework()), project.rootDirectory(),
                    buildEnv, run.database(), run.secretValues(), run.registryLogin(),
                    repo.dockerfile(project.dockerfilePath()), repo.commands()), log);
            if (repo.json() != null) p.builds().artifacts().saveConfig(artifact.id(), repo.json());
        } finally {
            watch.ended();
        }
        watch.join();
        if (Thread.interrupted() || !lease.held()) {
            throw new InterruptedException("build interrupted");
        }
        if (d.migrationId() != null) records.migrations().built(d.migrationId(), artifact.framework());
        int seconds = (int) Math.max(0, Duration.between(started, p.clock().instant()).toSeconds());
        String message = "Build finished in " + seconds + " s; starting the app";
        if (records.deployments().recordBuild(d.id(), artifact.id(), seconds, message)) moved(d, Level.INFO, message);
        else notMoved(d, DeploymentStatus.BUILDING, DeploymentStatus.DEPLOYING);
        return artifact;
    }

    /**
     * A prebuilt image as the deployment's artifact: its tag resolved to a digest once and recorded (a rollback, or a
     * retry after a crash, runs that digest whatever the tag points to by then), pulled unless the project has it.
     */
    private Artifact pull(Deployment d, Project project, RunEnvironment run, LogSink log) {
        String asked = d.image() != null ? d.image() : project.repo();
        ImageName name = ImageName.parse(asked).orElseThrow(() -> new IllegalStateException("not an image reference: " + asked));
        var caller = new Registries.Caller(run.registryLogin(),
                Map.of(BuildProcesses.MARKER, d.id()), run.secretValues());
        ImageName resolved = p.builds().pulls().resolve(name, caller, log);
        if (!resolved.toString().equals(d.image())) records.deployments().recordImage(d.id(), resolved.toString());
        Optional<Artifact> had = p.builds().artifacts().findImage(project.id(), resolved.toString());
        if (had.isPresent()) {
            log.log(Level.INFO, "The project ran this image before: starting its unpacked copy " + had.get().id());
            return had.get();
        }
        return p.builds().pulls().pull(project.id(), resolved, caller, log);
    }

    private Target start(Deployment d, Artifact artifact, RepoConfig config, AppSpec spec, LogSink log) {
        if (artifact.isStatic()) {
            log.log(Level.INFO, "Static site: served from the build by the router");
            return config.site(artifact);
        }
        if (d.rollbackOf() != null) {
            // the target may itself be a rollback served by an earlier deployment's process
            String owner = p.switches().instanceOwner(d.rollbackOf());
            var warm = serving.runtime().get(owner);
            if (warm.isPresent()) {
                serving.retiring().reinstate(owner);
                log.log(Level.INFO, "Switching to the still-running app of " + owner + " (" + where(warm.get()) + ")");
                return Target.app(warm.get().host(), warm.get().ports());
            }
        }
        Instance instance;
        try {
            instance = serving.runtime().start(spec, log);
        } catch (StartFailedException e) {
            throw new IllegalStateException("health check failed: " + e.getMessage(), e);
        }
        log.log(Level.INFO, "App is healthy on its port (" + where(instance) + ")");
        return Target.app(instance.host(), instance.ports());
    }

    private static String where(Instance i) {
        return i.pid() > 0 ? "pid " + i.pid() : i.host() + ":" + i.port();
    }

    private void startMigration(Deployment d) {
        if (d.migrationId() != null) records.migrations().started(d.migrationId());
    }

    private void move(Deployment d, DeploymentStatus from, DeploymentStatus to, Level level, String message) {
        if (records.deployments().transition(d.id(), from, to, level, message)) moved(d, level, message);
        else notMoved(d, from, to);
    }

    /** A migration's first deployment also writes its steps to the migration's log. */
    private void moved(Deployment d, Level level, String message) {
        if (d.migrationId() != null) records.logs().append(d.migrationId(), level, message);
    }

    /** The transition did not happen: cancelled, or resumed after a crash past this step. */
    private void notMoved(Deployment d, DeploymentStatus from, DeploymentStatus to) {
        cancels.check(d.id());
        Deployment now = records.deployments().find(d.id()).orElseThrow();
        if (now.status() == to) return;
        if (now.status() == DeploymentStatus.FAILED) throw new CancelWatch.Cancelled();
        throw new IllegalStateException("deployment " + d.id() + " is " + now.status().label() + ", expected " + from.label());
    }

    private void fail(String id, String cause) {
        Deployment failed = records.deployments().fail(id, cause, records.migrations());
        try {
            serving.runtime().stop(id);
        } catch (RuntimeException e) {
            LOG.warn("stopping failed deployment {}: {}", id, e.toString());
        }
        // a failed migration leaves nothing behind that it made (housekeeping retries after a crash here)
        if (failed.migrationId() != null) records.databases().release(failed.projectId(), failed.migrationId());
    }

    private void pruneArtifacts(String projectId) {
        try {
            p.builds().artifacts().prune(projectId, p.builds().keep(), new HashSet<>(records.deployments().liveArtifactIds(projectId)));
        } catch (RuntimeException e) {
            LOG.warn("pruning artifacts of {} failed: {}", projectId, e.toString());
        }
    }

    /** The deployment's log; a migration's first deployment also writes every line to the migration's log. */
    private LogSink sink(Deployment d, Set<String> secretValues) {
        LogSink own = records.logs().sink(d.id(), secretValues);
        if (d.migrationId() == null) return own;
        LogSink migration = records.logs().sink(d.migrationId(), secretValues);
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
