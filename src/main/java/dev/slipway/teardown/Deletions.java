package dev.slipway.teardown;

import dev.slipway.deployments.DeploymentService;
import dev.slipway.jobs.Job;
import dev.slipway.jobs.Workers;
import dev.slipway.projects.ProjectChanges;
import dev.slipway.router.RouteTable;

import java.util.Optional;

/**
 * Asking for a project's deletion, from the API or the dashboard: marks it (from then on it is not found), cancels its
 * deployments, takes its addresses out of this server's router, and hands the rest to {@link ProjectTeardown}.
 */
public final class Deletions {
    private final TeardownStore store;
    private final DeploymentService deployments;
    private final Workers workers;
    private final RouteTable routes;
    private final ProjectChanges changes;

    public Deletions(TeardownStore store, DeploymentService deployments, Workers workers, RouteTable routes,
                     ProjectChanges changes) {
        this.store = store;
        this.deployments = deployments;
        this.workers = workers;
        this.routes = routes;
        this.changes = changes;
    }

    /** The project, deleting or not, while any of it is left. */
    public Optional<TeardownStore.Marked> find(String projectId) {
        return store.find(projectId);
    }

    /**
     * Deletes the project (again: the first request's time stays, {@code deleteDatabase} only turns on).
     *
     * @return the project as marked; empty when it is gone already
     */
    public Optional<TeardownStore.Marked> request(String projectId, boolean deleteDatabase) {
        record Marked(TeardownStore.Marking marking, Optional<Job> held) {}
        Optional<Marked> marked = store.jdbi().inTransaction(h -> store.mark(h, projectId, deleteDatabase).map(m -> {
            deployments.cancelAll(h, projectId);
            Optional<Job> held = m.queue() ? workers.enqueueHeld(h, Job.PROJECT_DELETION, projectId, projectId) : Optional.empty();
            changes.changedAfterCommit(h, projectId);
            return new Marked(m, held);
        }));
        marked.ifPresent(m -> {
            routes.removeProject(m.marking().project().name());
            m.held().ifPresentOrElse(workers::runNow, workers::wake);
        });
        return marked.map(m -> m.marking().project());
    }
}
