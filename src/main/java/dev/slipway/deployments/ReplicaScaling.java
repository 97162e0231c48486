package dev.slipway.deployments;

import dev.slipway.appconfig.RepoConfig;
import dev.slipway.build.ArtifactStore;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;
import dev.slipway.logs.LogStore;
import dev.slipway.projects.Project;
import dev.slipway.projects.ProjectChanges;
import dev.slipway.projects.ProjectStore;
import dev.slipway.projects.Scaling;
import dev.slipway.router.RouteTable;
import dev.slipway.router.Target;
import dev.slipway.runtime.AppRuntime;
import dev.slipway.runtime.Instance;
import dev.slipway.runtime.StartFailedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;

/**
 * Scales a project's production to its replicas without a rebuild: on the server whose runtime runs it, the missing
 * instances start (each passes its health check before the router sends it anything), the extra ones stop (the router
 * stops choosing one as its stop begins), and its routes then name the instances there are. Told by the API on this
 * server and, through the store's change feed, of changes made on others; one project at a time, off the caller's thread.
 */
public final class ReplicaScaling implements Scaling, ProjectChanges, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaScaling.class);

    private final ProjectStore projects;
    private final DeploymentStore deployments;
    private final ArtifactStore artifacts;
    private final LogStore logs;
    private final AppRuntime runtime;
    private final RouteTable routes;
    private final ExecutorService executor = Executors.newSingleThreadExecutor(Thread.ofVirtual().name("replica-scaling").factory());

    public ReplicaScaling(ProjectStore projects, DeploymentStore deployments, ArtifactStore artifacts, LogStore logs,
                          AppRuntime runtime, RouteTable routes) {
        this.projects = projects;
        this.deployments = deployments;
        this.artifacts = artifacts;
        this.logs = logs;
        this.runtime = runtime;
        this.routes = routes;
    }

    /** How many instances of web a deployment of the project with this build runs: the project's, else its file's. */
    public static int replicas(Project project, RepoConfig config) {
        return project.run().replicas() != null ? project.run().replicas() : config.replicas();
    }

    @Override
    public Optional<String> refusal(Project project, int replicas) {
        return production(project).map(d -> config(d).replicaProblem(replicas));
    }

    @Override
    public void changed(String projectId) {
        if (projectId == null || projectId.isEmpty()) return; // a reconnect: each deployment started since has its count
        try {
            executor.execute(() -> scale(projectId));
        } catch (RejectedExecutionException closed) {
            // the server is stopping
        }
    }

    private void scale(String projectId) {
        try {
            Optional<Project> found = projects.find(projectId);
            if (found.isEmpty()) return;
            Project project = found.get();
            Optional<Deployment> production = production(project);
            if (production.isEmpty()) return;
            // a rollback to a running app: the instances are its target's
            Deployment d = production.get();
            String owner = runtime.get(d.id()).isPresent() || d.rollbackOf() == null ? d.id() : d.rollbackOf();
            Optional<Instance> before = runtime.get(owner);
            if (before.isEmpty()) return; // not on this server, or asleep: its next start runs the new count
            RepoConfig config = config(d);
            int wanted = replicas(project, config);
            if (before.get().ports().size() == wanted) return;
            LogSink log = logs.sink(deployments.outputLogOf(owner), List.of());
            String problem = config.replicaProblem(wanted);
            if (problem != null) {
                log.log(Level.ERROR, "Not scaled to " + wanted + " instances: " + problem);
                return;
            }
            Optional<Instance> after = runtime.scale(owner, wanted, log);
            if (after.isEmpty() || runtime.productionAddresses().isPresent()) return; // that runtime's address balances
            routes.replaceTarget(target(before.get()), target(after.get()));
            log.log(Level.INFO, "web runs as " + after.get().ports().size() + " instance(s)");
        } catch (StartFailedException e) {
            LOG.warn("scaling project {} failed: {}", projectId, e.getMessage());
        } catch (RuntimeException e) {
            LOG.warn("scaling project {} failed: {}", projectId, e.toString());
        }
    }

    private Optional<Deployment> production(Project project) {
        return Optional.ofNullable(project.productionDeploymentId()).flatMap(deployments::find);
    }

    private RepoConfig config(Deployment d) {
        return d.artifactId() == null ? RepoConfig.NONE : RepoConfig.ofJson(artifacts.config(d.artifactId()));
    }

    private static Target target(Instance i) {
        return Target.app(i.host(), i.ports());
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
