package dev.slipway.domains;

import dev.slipway.api.Access;
import dev.slipway.api.ApiException;
import dev.slipway.api.AppUrls;
import dev.slipway.api.Body;
import dev.slipway.projects.ProjectInput;
import dev.slipway.router.RouteTable;
import org.jdbi.v3.core.JdbiException;

import java.util.Objects;
import java.util.Set;
import dev.slipway.api.Envelope;
import dev.slipway.api.Reply;
import dev.slipway.api.Requests;
import dev.slipway.projects.Project;
import dev.slipway.projects.ProjectStore;
import dev.slipway.projects.ProjectView;
import io.javalin.http.Context;

/**
 * {@code PUT /v1/projects/{id}/domain}: set, change or remove the project's custom domain (a new one starts
 * over: pending, with a new token); {@code POST /v1/projects/{id}/domain/verify}: check its proof now.
 */
public final class DomainHandlers {
    private final ProjectStore projects;
    private final DomainChecks checks;
    private final RouteTable routes;
    private final AppUrls urls;

    public DomainHandlers(ProjectStore projects, DomainChecks checks, RouteTable routes, AppUrls urls) {
        this.projects = projects;
        this.checks = checks;
        this.routes = routes;
        this.urls = urls;
    }

    /** {@code {"domain": "shop.example.com"}}, or {@code {"domain": null}} to remove it → 200 with the project. */
    public void set(Context ctx) {
        String id = ctx.pathParam("project_id");
        Project p = Access.owned(Requests.principal(ctx), projects.find(id), Project::accountId, "Project", id);
        Body body = Requests.json(ctx, Requests.MAX_JSON_BODY);
        body.only(Set.of("domain"));
        if (!body.node().has("domain")) body.problem("domain", "is required (null removes the domain)");
        String domain = ProjectInput.domain(body, urls.appsDomain());
        if (domain != null && !domain.equals(p.domain()) && projects.domainTaken(domain)) {
            body.problem("domain", "is already used by a project");
        }
        body.check();
        if (!Objects.equals(domain, p.domain())) {
            try {
                projects.changeDomain(p.id(), domain);
            } catch (JdbiException e) {
                // another request took the domain between the check and the write: the unique index refused it
                if (projects.domainTaken(domain)) throw ApiException.invalidField("domain", "is already used by a project");
                throw e;
            }
        }
        Project now = projects.find(p.id()).orElseThrow();
        // this server's routes at once; the others' through the store's change feed (DomainRoutes)
        routes.syncDomain(now.name(), now.servedDomain());
        ctx.json(new Envelope<>(ProjectView.of(now, urls)));
    }

    /** 200 with the project: {@code domain_status} verified, or still pending with the reason in {@code domain_verification}. */
    public Reply verify(Context ctx) {
        String id = ctx.pathParam("project_id");
        Project p = Access.owned(Requests.principal(ctx), projects.find(id), Project::accountId, "Project", id);
        if (p.domain() == null) throw ApiException.invalidState("Project " + id + " has no custom domain to verify");
        return new Reply(200, null, new Envelope<>(ProjectView.of(checks.check(p), urls)));
    }
}
