package dev.slipway.teardown;

import dev.slipway.api.Access;
import dev.slipway.api.ApiException;
import dev.slipway.api.Envelope;
import dev.slipway.api.Requests;
import dev.slipway.deployments.DeploymentService;
import dev.slipway.jobs.Job;
import dev.slipway.jobs.Workers;
import dev.slipway.projects.ProjectChanges;
import dev.slipway.router.RouteTable;
import io.javalin.http.Context;

import java.util.Optional;

/**
 * {@code DELETE /v1/projects/{id}}: from the answer on, the project is gone for the API and its addresses answer the
 * router's 404; {@link ProjectTeardown} removes the rest. Asking again while that runs answers the same (and may add
 * {@code ?delete_database=true}); once it is done, the project is not found.
 */
public final class TeardownHandlers {
    private final TeardownStore store;
    private final DeploymentService deployments;
    private final Workers workers;
    private final RouteTable routes;
    private final ProjectChanges changes;

    public TeardownHandlers(TeardownStore store, DeploymentService deployments, Workers workers, RouteTable routes,
                            ProjectChanges changes) {
        this.store = store;
        this.deployments = deployments;
        this.workers = workers;
        this.routes = routes;
        this.changes = changes;
    }

    public void delete(Context ctx) {
        String id = ctx.pathParam("project_id");
        boolean deleteDatabase = deleteDatabase(ctx);
        Access.owned(Requests.principal(ctx), store.find(id), TeardownStore.Marked::accountId, "Project", id);
        record Marked(TeardownStore.Marking marking, Optional<Job> held) {}
        Marked marked = store.jdbi().inTransaction(h -> {
            TeardownStore.Marking m = store.mark(h, id, deleteDatabase)
                    .orElseThrow(() -> ApiException.notFound("Project " + id + " not found"));
            deployments.cancelAll(h, id);
            Optional<Job> held = m.queue() ? workers.enqueueHeld(h, Job.PROJECT_DELETION, id, id) : Optional.empty();
            changes.changedAfterCommit(h, id);
            return new Marked(m, held);
        });
        routes.removeProject(marked.marking().project().name());
        marked.held().ifPresentOrElse(workers::runNow, workers::wake);
        ctx.status(202).json(new Envelope<>(TeardownView.of(marked.marking().project())));
    }

    private static boolean deleteDatabase(Context ctx) {
        String v = ctx.queryParam("delete_database");
        if (v == null || v.equals("false")) return false;
        if (v.equals("true")) return true;
        throw ApiException.invalidField("delete_database", "must be true or false");
    }
}
