package dev.slipway.teardown;

import dev.slipway.api.Access;
import dev.slipway.api.ApiException;
import dev.slipway.api.Envelope;
import dev.slipway.api.Requests;
import io.javalin.http.Context;

/**
 * {@code DELETE /v1/projects/{id}}: from the answer on, the project is gone for the API and its addresses answer the
 * router's 404; {@link ProjectTeardown} removes the rest. Asking again while that runs answers the same (and may add
 * {@code ?delete_database=true}); once it is done, the project is not found.
 */
public final class TeardownHandlers {
    private final Deletions deletions;

    public TeardownHandlers(Deletions deletions) {
        this.deletions = deletions;
    }

    public void delete(Context ctx) {
        String id = ctx.pathParam("project_id");
        boolean deleteDatabase = deleteDatabase(ctx);
        Access.owned(Requests.principal(ctx), deletions.find(id), TeardownStore.Marked::accountId, "Project", id);
        TeardownStore.Marked marked = deletions.request(id, deleteDatabase)
                .orElseThrow(() -> ApiException.notFound("Project " + id + " not found"));
        ctx.status(202).json(new Envelope<>(TeardownView.of(marked)));
    }

    private static boolean deleteDatabase(Context ctx) {
        String v = ctx.queryParam("delete_database");
        if (v == null || v.equals("false")) return false;
        if (v.equals("true")) return true;
        throw ApiException.invalidField("delete_database", "must be true or false");
    }
}
