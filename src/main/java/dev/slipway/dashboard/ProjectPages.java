package dev.slipway.dashboard;

import dev.slipway.api.Paging;
import dev.slipway.api.ApiException;
import dev.slipway.store.Page;
import dev.slipway.store.PageRequest;
import dev.slipway.api.AppUrls;
import dev.slipway.dashboard.Html.Safe;
import dev.slipway.deployments.Deployment;
import dev.slipway.deployments.DeploymentService;
import dev.slipway.deployments.DeploymentStore;
import dev.slipway.projects.PreviewAddress;
import dev.slipway.projects.Project;
import dev.slipway.projects.ProjectView;
import dev.slipway.projects.ProjectStore;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;

import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.List;
import java.util.LinkedHashMap;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/** Projects: the account's list, and a project with its production address, its deployments and its actions. */
public final class ProjectPages {
    private final ProjectStore projects;
    private final DeploymentStore deployments;
    private final DeploymentService service;
    private final AppUrls urls;
    private final ProjectView.Certificates certificates;
    private final Function<String, Optional<String>> detected;
    private final ServicePanel panel;

    public ProjectPages(ProjectStore projects, DeploymentStore deployments, DeploymentService service, AppUrls urls) {
        this(projects, deployments, service, urls, ProjectView.Certificates.NONE, projectId -> Optional.empty());
    }

    /**
     * @param certificates the custom domain's certificate, shown on the project's page
     * @param detected     the framework a project's builds detected, shown where the project names none
     */
    public ProjectPages(ProjectStore projects, DeploymentStore deployments, DeploymentService service, AppUrls urls,
                        ProjectView.Certificates certificates, Function<String, Optional<String>> detected) {
        this(projects, deployments, service, urls, certificates, detected, null);
    }

    /** @param service what production's slipway.toml runs (health check, volumes, cron jobs and runs); null: not shown */
    public ProjectPages(ProjectStore projects, DeploymentStore deployments, DeploymentService service, AppUrls urls,
                        ProjectView.Certificates certificates, Function<String, Optional<String>> detected, ServicePanel panel) {
        this.panel = panel;
        this.projects = projects;
        this.deployments = deployments;
        this.service = service;
        this.urls = urls;
        this.certificates = certificates;
        this.detected = detected;
    }

    /** The domain's HTTPS state: issued (until when), failed (why, and when it is tried again) or pending; HSTS. */
    private Safe https(Project p) {
        if (p.domain() == null) return Html.EMPTY;
        ProjectView.Certificate c = certificates.of(p.domain()).orElse(null);
        if (c == null) return Html.EMPTY;
        Safe state = switch (c.status()) {
            case "issued" -> Html.fmt("<span class=\"badge badge-live\">issued</span> until %s", Format.time(c.expiresAt()));
            case "failed" -> Html.fmt("%s %s%s", Format.badge("failed"), Format.orDash(c.lastError()),
                    c.expiresAt() == null ? Html.EMPTY : Html.fmt(" (the current certificate is served until %s)", Format.time(c.expiresAt())));
            default -> Html.fmt("%s being ordered", Format.badge("pending"));
        };
        return Html.fmt("<dt>Certificate</dt><dd data-certificate=\"%s\">%s</dd><dt>HSTS</dt><dd>%s</dd>",
                c.status(), state, p.hsts() ? "on" : "off");
    }

    /** The project's framework, or the one its builds detected, said so; else that each build detects it. */
    private Safe framework(Project p) {
        if (p.framework() != null) return Html.fmt("%s", p.framework());
        return detected.apply(p.id()).map(f -> Html.fmt("%s <span class=\"muted\">(detected)</span>", f))
                .orElse(Html.fmt("<span class=\"muted\">detected at each build</span>"));
    }

    public void list(Context ctx, Viewer viewer) {
        Page<Project> page = projects.page(viewer.accountId(), Paging.request(ctx));
        Safe content;
        if (page.data().isEmpty() && ctx.queryParam("cursor") == null) {
            content = Html.fmt("""
                    <div class="empty">
                      <p><strong>No projects yet.</strong> A project is created by its first migration: connect a repository
                      and Slipway builds it and makes it live.</p>
                      <p><a class="button primary" href="/dashboard/projects/new">New project</a></p>
                      <p>or from a terminal:</p>
                      <pre><code>slipway migrate --source github --repo owner/repo --follow</code></pre>
                      <p>or <code>POST /v1/migrations</code> with an <a href="/dashboard/settings/api-keys">API key</a>
                      (see the <a href="/docs">API reference</a>).</p>
                    </div>""");
        } else {
            content = Html.fmt("""
                    <div class="table-wrap">
                    <table>
                      <caption class="visually-hidden">Projects</caption>
                      <thead><tr><th scope="col">Project</th><th scope="col">Source</th><th scope="col">Production</th>
                      <th scope="col" class="wide">Created</th></tr></thead>
                      <tbody>%s</tbody>
                    </table>
                    </div>
                    %s""", Html.each(page.data(), this::projectRow), more(ctx.path(), page));
        }
        String deleted = ctx.queryParam("deleted");
        Layout.render(ctx, 200, viewer, "Projects", Html.fmt("""
                <div class="actions"><h1>Projects</h1><a class="button primary" href="/dashboard/projects/new">New project</a></div>
                %s
                %s""", deleted == null ? Html.EMPTY : Layout.notice("Project " + deleted + " is being deleted: its apps stop and its files go."),
                content));
    }

    public void show(Context ctx, Viewer viewer) {
        render(ctx, 200, viewer, owned(ctx, viewer), null);
    }

    public void deploy(Context ctx, Viewer viewer, Form form) {
        Project project = owned(ctx, viewer);
        Deployment d = service.create(viewer.account().tier(), project, null, null, null, null);
        ctx.redirect("/dashboard/deployments/" + d.id(), HttpStatus.SEE_OTHER);
    }

    /** The project page; {@code error} is shown above the deployments (e.g. a refused rollback). */
    void render(Context ctx, int status, Viewer viewer, Project p, String error) {
        Page<Deployment> page = deployments.page(viewer.accountId(), p.id(), null, Paging.request(ctx));
        Safe list = page.data().isEmpty() && ctx.queryParam("cursor") == null
                ? Html.fmt("<p class=\"empty\">No deployments yet. Deploy builds the head of %s.</p>", Format.orDash(p.branch()))
                : Html.fmt("""
                        <div class="table-wrap">
                        <table class="deployments">
                          <caption class="visually-hidden">Deployments of %s, newest first</caption>
                          <thead><tr><th scope="col">Deployment</th><th scope="col">Status</th><th scope="col">Commit</th>
                          <th scope="col" class="wide">Created</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
                          <tbody>%s</tbody>
                        </table>
                        </div>
                        %s""", p.name(), Html.each(page.data(), d -> deploymentRow(viewer, p, d)), more(ctx.path(), page));
        Safe production = p.productionDeploymentId() == null
                ? Html.fmt("<span class=\"muted\">not live yet</span>")
                : Html.fmt("<a href=\"%s\" rel=\"noopener\">%s</a>", urls.production(p.name()), urls.production(p.name()));
        Layout.render(ctx, status, viewer, p.name(), Html.fmt("""
                <p class="crumbs"><a href="/dashboard/projects">Projects</a></p>
                <div class="title-row">
                  <h1>%s</h1>
                  <form method="post" action="/dashboard/projects/%s/deploy">%s
                    <button type="submit" class="primary">Deploy</button>
                  </form>
                </div>
                <dl class="fields">
                  <dt>Production</dt><dd>%s</dd>
                  %s%s
                  <dt>Source</dt><dd>%s</dd>
                  <dt>Branch</dt><dd>%s</dd>
                  <dt>Framework</dt><dd>%s</dd>
                  <dt>Region</dt><dd>%s</dd>
                  <dt>Env vars</dt><dd>%s</dd>
                  %s
                  <dt>ID</dt><dd><code>%s</code></dd>
                </dl>
                %s
                %s
                <h2>Deployments</h2>
                %s
                %s
                <section class="danger-zone">
                  <h2>Delete this project</h2>
                  <p>Stops its apps and deletes its deployments, builds and env vars; it asks you to type its name.</p>
                  <p><a class="button danger" href="/dashboard/projects/%s/delete">Delete project…</a></p>
                </section>""", p.name(), p.id(), Layout.csrf(viewer), production,
                domain(p), https(p),
                p.repo() == null ? p.source() : p.source() + ": " + p.repo(), Format.orDash(p.branch()),
                framework(p), p.region(),
                p.envVarNames().isEmpty() ? "none" : String.join(", ", p.envVarNames()),
                p.database() == null ? Html.EMPTY : Html.fmt("<dt>Database</dt><dd>%s (<code>%s</code>, %s)</dd>",
                        p.database().type(), p.database().id(), p.database().state()),
                p.id(), previews(p), panel == null ? Html.EMPTY : panel.of(p), Layout.error(error), list, p.id()));
    }

    /** The newest live preview of each branch, with the branch's address. */
    private Safe previews(Project p) {
        Map<String, Deployment> newest = new LinkedHashMap<>();
        for (Deployment d : deployments.livePreviews(p.id())) {
            if (d.branch() != null) newest.putIfAbsent(d.branch(), d);
        }
        if (newest.isEmpty()) return Html.EMPTY;
        return Html.fmt("""
                <h2>Previews</h2>
                <div class="table-wrap">
                <table class="previews">
                  <caption class="visually-hidden">The newest live preview of each branch of %s</caption>
                  <thead><tr><th scope="col">Branch</th><th scope="col">Address</th><th scope="col">Deployment</th><th scope="col">Commit</th></tr></thead>
                  <tbody>%s</tbody>
                </table>
                </div>""", p.name(), Html.each(List.copyOf(newest.values()), d -> {
            String url = urls.branchLabel(PreviewAddress.label(p.name(), d.branch()));
            return Html.fmt("<tr><td><code>%s</code></td><td><a href=\"%s\" rel=\"noopener\">%s</a></td>"
                            + "<td><a href=\"/dashboard/deployments/%s\"><code>%s</code></a></td><td>%s</td></tr>",
                    d.branch(), url, url, d.id(), d.id(), Format.sha(d.commitSha()));
        }));
    }

    /**
     * The custom domain, whether it is served, and while it is not, the TXT record that proves it (the server
     * checks pending domains on its own; {@code POST /v1/projects/{id}/domain/verify} checks at once).
     */
    private static Safe domain(Project p) {
        if (p.domain() == null) return Html.EMPTY;
        Project.DomainCheck check = p.domainCheck();
        if (p.servedDomain() != null) {
            return Html.fmt("<dt>Domain</dt><dd>%s <span class=\"badge\" data-domain-status=\"verified\">verified</span></dd>", p.domain());
        }
        Safe record = check == null || check.token() == null ? Html.fmt("<p class=\"muted\">A verification token is being prepared.</p>")
                : Html.fmt("<p>Publish this DNS record; the domain is served once it is found:</p>"
                        + "<table class=\"record\"><tr><th>Type</th><th>Name</th><th>Value</th></tr>"
                        + "<tr><td>TXT</td><td><code>%s</code></td><td><code data-domain-token>%s</code></td></tr></table>",
                        ProjectView.RECORD_PREFIX + p.domain(), check.token());
        Safe last = check == null || check.checkedAt() == null ? Html.EMPTY
                : Html.fmt("<p class=\"muted\">Last checked %s: %s</p>", Format.time(check.checkedAt()),
                        check.reason() == null ? "not verified" : check.reason());
        return Html.fmt("<dt>Domain</dt><dd>%s <span class=\"badge\" data-domain-status=\"pending_verification\">pending verification</span>%s%s</dd>",
                p.domain(), record, last);
    }

    Project owned(Context ctx, Viewer viewer) {
        String id = ctx.pathParam("project_id");
        return projects.find(id).filter(p -> p.accountId().equals(viewer.accountId()))
                .orElseThrow(() -> ApiException.notFound("There is no project " + id + " in your account."));
    }

    private Safe projectRow(Project p) {
        Safe production = p.productionDeploymentId() == null ? Html.fmt("<span class=\"muted\">not live yet</span>")
                : Html.fmt("<a href=\"%s\" rel=\"noopener\">%s</a>", urls.production(p.name()), urls.production(p.name()));
        return Html.fmt("<tr><td><a href=\"/dashboard/projects/%s\">%s</a></td><td>%s</td><td>%s</td><td class=\"wide\">%s</td></tr>",
                p.id(), p.name(), p.repo() == null ? p.source() : p.repo(), production, Format.time(p.createdAt()));
    }

    private Safe deploymentRow(Viewer viewer, Project p, Deployment d) {
        boolean production = d.id().equals(p.productionDeploymentId());
        Safe action = service.rollbackRefusal(p, d).isPresent() ? Html.EMPTY : Html.fmt("""
                <form method="post" action="/dashboard/deployments/%s/rollback">%s
                <button type="submit" data-confirm="Roll production back to %s (commit %s)?" aria-label="Roll back to %s">Roll back</button>
                </form>""", d.id(), Layout.csrf(viewer), d.id(), d.commitSha() == null ? "?" : d.commitSha().substring(0, 7), d.id());
        Safe kind = d.preview() ? Html.fmt("preview of <code>%s</code>", Format.orDash(d.branch()))
                : d.promotedFrom() != null ? Html.fmt("promoted from <code>%s</code>", d.promotedFrom())
                : d.rollbackOf() != null ? Html.fmt("rollback to <code>%s</code>", d.rollbackOf())
                : d.migrationId() != null ? Html.fmt("first deployment, by <a href=\"/dashboard/migrations/%s\">its migration</a>", d.migrationId())
                : null;
        return Html.fmt("""
                <tr><td><a href="/dashboard/deployments/%s"><code>%s</code></a>%s%s</td><td>%s</td>
                <td>%s <span class="message">%s</span></td><td class="wide">%s</td><td>%s</td></tr>""",
                d.id(), d.id(), Html.when(production, Html.fmt(" <span class=\"badge badge-production\">production</span>")),
                kind == null ? Html.EMPTY : Html.fmt("<br><span class=\"muted small\">%s</span>", kind),
                Format.badge(d.status().label()), Format.sha(d.commitSha()), Format.orDash(d.commitMessage()),
                Format.time(d.createdAt()), action);
    }

    static Safe more(String path, Page<?> page) {
        if (!page.pagination().hasMore()) return Html.EMPTY;
        return Html.fmt("<p class=\"more\"><a href=\"%s?cursor=%s\">Older</a></p>", path,
                URLEncoder.encode(page.pagination().nextCursor(), StandardCharsets.UTF_8));
    }
}
