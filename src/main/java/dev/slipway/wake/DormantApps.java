package dev.slipway.wake;

import dev.slipway.appconfig.RepoConfig;
import dev.slipway.build.Artifact;
import dev.slipway.build.ArtifactStore;
import dev.slipway.databases.DatabaseService;
import dev.slipway.deployments.Deployment;
import dev.slipway.deployments.DeploymentService;
import dev.slipway.deployments.DeploymentStatus;
import dev.slipway.deployments.DeploymentStore;
import dev.slipway.deployments.RunEnvironment;
import dev.slipway.deployments.ReplicaScaling;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;
import dev.slipway.logs.LogStore;
import dev.slipway.projects.PreviewAddress;
import dev.slipway.projects.Project;
import dev.slipway.projects.ProjectStore;
import dev.slipway.router.RouteTable;
import dev.slipway.router.Target;
import dev.slipway.router.Waker;
import dev.slipway.runtime.AppSpec;
import dev.slipway.runtime.InstanceType;
import dev.slipway.runtime.Backoff;
import dev.slipway.runtime.Instance;
import dev.slipway.runtime.RetiringPool;
import dev.slipway.runtime.AppRuntime;
import dev.slipway.runtime.StartFailedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.regex.Pattern;

/**
 * Wake-on-request (scale to zero): a request to the address of a deployment that is {@code live} or
 * {@code rolled_back} but has no running process starts its immutable artifact again, as a cold
 * rollback does (no build), and is served once the app answers. Concurrent requests share one start
 * per deployment. A woken deployment that is not production is retired again like a replaced
 * production: it stops once idle for {@code SLIPWAY_RETIRE_AFTER_SECONDS}, and the next request wakes it again.
 * A deployment whose start failed is not started again for a while (5 s, doubling up to 5 min, until
 * one start succeeds): meanwhile its requests get the 503 page at once.
 */
public final class DormantApps implements Waker {
    private static final Logger LOG = LoggerFactory.getLogger(DormantApps.class);
    private static final Pattern SHORT_ID = Pattern.compile("[0-9a-z]{8}");
    static final Duration FIRST_BACKOFF = Duration.ofSeconds(5);
    static final Duration MAX_BACKOFF = Duration.ofMinutes(5);

    /** Everything a wake reads or starts. */
    public record Parts(Records records, Serving serving, Clock clock) {}

    /** The records a wake reads and writes. */
    public record Records(DeploymentStore deployments, DeploymentService service, ProjectStore projects,
                          ArtifactStore artifacts, DatabaseService databases, LogStore logs) {}

    /** What starts a woken deployment and routes to it. */
    public record Serving(AppRuntime runtime, RouteTable routes, RetiringPool retiring, ProductionInstances production) {}

    /** Consecutive failed starts of a deployment, and when the next one may be tried. */
    private record Failures(int count, Instant retryAt) {}

    private final Clock clock;
    private final Records records;
    private final Serving serving;
    private final Executor executor = Executors.newVirtualThreadPerTaskExecutor();
    private final Map<String, CompletableFuture<Wake>> starting = new ConcurrentHashMap<>();
    private final Map<String, Failures> failing = new ConcurrentHashMap<>();
    /** Completed once the runtime's recovery and the route restore are done: a start before would break recovery. */
    private final CompletableFuture<Void> recovered = new CompletableFuture<>();

    public DormantApps(Parts parts) {
        this.clock = parts.clock();
        this.records = parts.records();
        this.serving = parts.serving();
    }

    /** After the server's recovery: wakes may start apps from now on. */
    public void open() {
        recovered.complete(null);
    }

    @Override
    public CompletableFuture<Wake> wake(String hostHeader) {
        return recovered.thenComposeAsync(v -> {
            try {
                Optional<Found> found = find(hostHeader);
                if (found.isEmpty()) return CompletableFuture.completedFuture(new Wake.NoApp());
                Found f = found.get();
                // one start per deployment: later requests wait for the first one's
                CompletableFuture<Wake> mine = new CompletableFuture<>();
                CompletableFuture<Wake> running = starting.putIfAbsent(f.deployment().id(), mine);
                if (running != null) return running;
                // asked only now: a failed start records its backoff before it lets the next one in
                Optional<Duration> backoff = backoff(f.deployment().id());
                if (backoff.isPresent()) {
                    starting.remove(f.deployment().id(), mine);
                    mine.complete(new Wake.Failing(backoff.get()));
                    return mine;
                }
                executor.execute(() -> {
                    Wake result;
                    try {
                        result = start(f);
                    } catch (RuntimeException e) {
                        LOG.error("waking deployment {} failed", f.deployment().id(), e);
                        failed(f.deployment().id());
                        result = new Wake.Down();
                    } finally {
                        starting.remove(f.deployment().id(), mine);
                    }
                    mine.complete(result);
                });
                return mine;
            } catch (RuntimeException e) {
                LOG.error("resolving {} for a wake failed", hostHeader, e);
                return CompletableFuture.completedFuture(new Wake.Down());
            }
        }, executor);
    }

    private record Found(Project project, Deployment deployment) {}

    /** The deployment an address names, when it is one that may run: live or rolled back, built. */
    private Optional<Found> find(String hostHeader) {
        var address = serving.routes().address(hostHeader).orElse(null);
        if (address == null) return Optional.empty();
        Optional<Found> found;
        if (address.domain() != null) {
            // only a domain whose control is proven is served
            found = records.projects().findByDomain(address.domain()).filter(project -> project.servedDomain() != null)
                    .flatMap(this::production);
        } else {
            // a deployment's address first, as RouteTable.resolve: a project named like it must not take it over
            String label = address.label();
            found = Optional.empty();
            int dash = label.lastIndexOf('-');
            if (dash > 0 && SHORT_ID.matcher(label.substring(dash + 1)).matches()) {
                String shortId = label.substring(dash + 1);
                found = records.projects().findByName(label.substring(0, dash)).flatMap(project -> records.deployments()
                        .findByShortId(project.id(), shortId).map(d -> new Found(project, d)));
            }
            if (found.isEmpty()) found = branchPreview(label);
            if (found.isEmpty()) found = records.projects().findByName(label).flatMap(this::production);
        }
        return found.filter(f -> (f.deployment().status() == DeploymentStatus.LIVE
                || f.deployment().status() == DeploymentStatus.ROLLED_BACK) && f.deployment().artifactId() != null);
    }

    private boolean isNewestPreview(Project project, Deployment d) {
        return records.deployments().livePreviews(project.id()).stream().filter(p -> d.branch().equals(p.branch()))
                .findFirst().map(p -> p.id().equals(d.id())).orElse(false)
                && records.projects().previewLabelFree(PreviewAddress.label(project.name(), d.branch()));
    }

    /** The newest live preview a {@code <project>-git-<branch>} address names. */
    private Optional<Found> branchPreview(String label) {
        for (String name : PreviewAddress.projectsOf(label)) {
            Optional<Found> found = records.projects().findByName(name).flatMap(project -> records.deployments()
                    .livePreviews(project.id()).stream()
                    .filter(d -> d.branch() != null && PreviewAddress.label(project.name(), d.branch()).equals(label))
                    .findFirst().map(d -> new Found(project, d)));
            if (found.isPresent() && records.projects().previewLabelFree(label)) return found;
        }
        return Optional.empty();
    }

    private Optional<Found> production(Project project) {
        if (project.productionDeploymentId() == null) return Optional.empty();
        return records.deployments().find(project.productionDeploymentId()).map(d -> new Found(project, d));
    }

    private Wake start(Found f) {
        Deployment d = f.deployment();
        Project project = f.project();
        // a process serving this code may run already: its own, its rollback target's, or a rollback's to it
        Optional<Instance> warm = runningFor(d);
        if (warm.isPresent()) return route(project, d, warm.get());
        Optional<Artifact> artifact = records.artifacts().find(d.artifactId());
        if (artifact.isEmpty()) {
            LOG.info("deployment {} was asked for but its build {} was pruned", d.id(), d.artifactId());
            return new Wake.Down();
        }
        if (artifact.get().isStatic()) {
            return route(project, d, RepoConfig.ofJson(records.artifacts().config(artifact.get().id())).site(artifact.get()));
        }

        // the same environment a rollback to this deployment gets
        RunEnvironment run = RunEnvironment.of(d, records.service(), records.projects(), records.databases());
        LogSink log = records.logs().sink(d.id(), run.secretValues());

        long started = System.nanoTime();
        Instance instance;
        try {
            RepoConfig config = RepoConfig.ofJson(records.artifacts().config(artifact.get().id()));
            AppSpec spec = config.apply(new AppSpec(d.id(), project.id(), artifact.get(), run.env(), run.secretValues(),
                    InstanceType.of(d.instanceType()), run.database()));
            int replicas = ReplicaScaling.replicas(project, config);
            // a count its volumes refuse (changed in the file since) runs as one
            if (config.replicaProblem(replicas) == null) spec = spec.withReplicas(replicas);
            instance = serving.runtime().start(project.run().health() == null ? spec : spec.withHealth(project.run().health()), log);
        } catch (StartFailedException e) {
            Duration backoff = failed(d.id());
            log.log(Level.ERROR, "Woken by a request, but the app did not start: " + e.getMessage());
            log.log(Level.INFO, "Requests get a 503 page for " + backoff.toSeconds() + " s; the first one after that starts it again");
            return new Wake.Down();
        }
        failing.remove(d.id());
        long ms = (System.nanoTime() - started) / 1_000_000;
        log.log(Level.INFO, "Woken by a request; started in " + ms + " ms");
        if (!serving.production().test(d.id())) serving.retiring().retire(d.id());
        return route(project, d, instance);
    }

    /** How long the deployment's last failed start still keeps it from being started again. */
    private Optional<Duration> backoff(String deploymentId) {
        Failures f = failing.get(deploymentId);
        if (f == null) return Optional.empty();
        Duration left = Duration.between(clock.instant(), f.retryAt());
        return left.isPositive() ? Optional.of(left) : Optional.empty();
    }

    /** Records a failed start; returns the backoff before the next: 5 s, 10 s, 20 s … at most 5 min. */
    private Duration failed(String deploymentId) {
        Failures f = failing.compute(deploymentId, (id, before) -> {
            int count = before == null ? 1 : before.count() + 1;
            return new Failures(count, clock.instant().plus(Backoff.delay(count, FIRST_BACKOFF, MAX_BACKOFF)));
        });
        return Duration.between(clock.instant(), f.retryAt());
    }

    private Optional<Instance> runningFor(Deployment d) {
        Optional<Instance> own = serving.runtime().active(d.id());
        if (own.isPresent()) return own;
        if (d.rollbackOf() != null) {
            Optional<Instance> target = serving.runtime().active(d.rollbackOf());
            if (target.isPresent()) return target;
        }
        List<String> rollbacksToIt = records.deployments().rollbacksTo(d.id());
        return rollbacksToIt.stream().flatMap(id -> serving.runtime().active(id).stream()).findFirst();
    }

    /**
     * Production goes to the runtime's production address when it has one (a Kubernetes Service, whose
     * selector was set at promotion and is only read here: a wake-up racing a promotion on another server must
     * not move it back), else to the instance.
     */
    private Wake route(Project project, Deployment d, Instance instance) {
        Target target = Target.app(instance.host(), instance.ports());
        if (!d.id().equals(project.productionDeploymentId())) return route(project, d, target, target);
        Target production = serving.runtime().productionAddresses().flatMap(a -> a.production(project.id()))
                .<Target>map(i -> Target.app(i.host(), i.ports())).orElse(target);
        return route(project, d, target, production);
    }

    private Wake route(Project project, Deployment d, Target target) {
        return route(project, d, target, target);
    }

    private Wake route(Project project, Deployment d, Target target, Target production) {
        serving.routes().setDeployment(project.name(), d.shortId(), target);
        if (d.preview() && d.branch() != null && isNewestPreview(project, d)) {
            serving.routes().setDeployment(project.name(), PreviewAddress.suffix(project.name(), d.branch()), target);
        }
        if (d.id().equals(project.productionDeploymentId())) {
            serving.routes().setProduction(project.name(), production);
            if (project.servedDomain() != null) serving.routes().setDomain(project.servedDomain(), project.name());
        }
        return new Wake.Serve(target);
    }
}
