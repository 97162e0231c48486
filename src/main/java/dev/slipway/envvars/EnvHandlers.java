package dev.slipway.envvars;

import dev.slipway.api.Access;
import dev.slipway.api.ApiException;
import dev.slipway.api.Body;
import dev.slipway.api.Envelope;
import dev.slipway.api.Reply;
import dev.slipway.api.Requests;
import dev.slipway.auth.Principal;
import dev.slipway.databases.DatabaseService;
import dev.slipway.databases.DatabaseState;
import dev.slipway.deployments.Deployment;
import dev.slipway.deployments.DeploymentService;
import dev.slipway.projects.Project;
import dev.slipway.projects.ProjectEnvStore;
import dev.slipway.projects.ProjectInput;
import dev.slipway.projects.ProjectStore;
import io.javalin.http.Context;

import java.util.Set;

/**
 * {@code /v1/projects/{id}/env}: a project's env vars one at a time. A read lists names and when each changed, never a
 * value; a change applies at the project's next deployment, or at once with {@code ?redeploy=true} (a new deployment
 * of production's source, as {@code POST /v1/deployments} makes).
 */
public final class EnvHandlers {
    private static final Set<String> FIELDS = Set.of("value");

    private final ProjectStore projects;
    private final DeploymentService deployments;
    private final Runnable roomForBuild;

    /** @param roomForBuild refuses (507) when the disk has no room for the build a redeploy makes */
    public EnvHandlers(ProjectStore projects, DeploymentService deployments, Runnable roomForBuild) {
        this.projects = projects;
        this.deployments = deployments;
        this.roomForBuild = roomForBuild;
    }

    public void list(Context ctx) {
        Project p = owned(ctx);
        ctx.json(new Envelope<>(projects.env().names(p.id()).stream().map(n -> new EnvVarView(n.name(), n.updatedAt())).toList()));
    }

    /** {@code PUT …/env/{name}} with {@code {"value": …}}: 201 when the name is new, 200 when its value was replaced. */
    public Reply put(Context ctx) {
        Project p = owned(ctx);
        String name = name(ctx, p);
        boolean redeploy = redeploy(ctx);
        Body body = Requests.json(ctx, Requests.MAX_JSON_BODY);
        body.only(FIELDS);
        if (body.node().path("value").isMissingNode() || body.node().path("value").isNull()) body.problem("value", "is required");
        String value = body.string("value", false, ProjectInput.MAX_ENV_VALUE, null, null); // an empty one is a value
        body.check();
        if (redeploy) roomForBuild.run();
        ProjectEnvStore.Put put = projects.env().put(p.id(), name, value, ProjectInput.MAX_ENV_VARS).orElseThrow(() ->
                ApiException.invalidField("name", "is new, and the project has " + ProjectInput.MAX_ENV_VARS
                        + " env vars, the most it may have: delete one first"));
        var changed = new EnvVarView.Changed(name, put.var().updatedAt(), redeploy ? redeployed(ctx, p) : null);
        return put.created() ? Reply.created("/v1/projects/" + p.id() + "/env/" + name, changed)
                : new Reply(200, null, new Envelope<>(changed));
    }

    /** {@code DELETE …/env/{name}}: 204; 202 with the deployment that applies it with {@code ?redeploy=true}. */
    public void delete(Context ctx) {
        Project p = owned(ctx);
        String name = name(ctx, p);
        boolean redeploy = redeploy(ctx);
        if (redeploy) roomForBuild.run();
        if (!projects.env().delete(p.id(), name)) {
            throw ApiException.notFound("Project " + p.id() + " has no env var " + name);
        }
        if (!redeploy) {
            ctx.status(204);
            return;
        }
        ctx.status(202).json(new Envelope<>(new EnvVarView.Changed(name, null, redeployed(ctx, p))));
    }

    private String redeployed(Context ctx, Project p) {
        Principal principal = Requests.principal(ctx);
        Deployment d = deployments.create(principal.account().tier(), p, null, null, null, null);
        return d.id();
    }

    private Project owned(Context ctx) {
        String id = ctx.pathParam("project_id");
        return Access.owned(Requests.principal(ctx), projects.find(id), Project::accountId, "Project", id);
    }

    private static String name(Context ctx, Project p) {
        String name = ctx.pathParam("name");
        if (!ProjectInput.ENV_NAME.matcher(name).matches()) {
            throw ApiException.invalidField("name", "is not a valid variable name (letters, digits and '_', not starting with a digit)");
        }
        if (name.equals(DatabaseService.VARIABLE) && p.database() != null && DatabaseState.parse(p.database().state()).usable()) {
            throw ApiException.invalidField("name", "is set by the project's database (" + p.database().id() + ")");
        }
        return name;
    }

    private static boolean redeploy(Context ctx) {
        String v = ctx.queryParam("redeploy");
        if (v == null || v.equals("false")) return false;
        if (v.equals("true")) return true;
        throw ApiException.invalidField("redeploy", "must be true or false");
    }
}
