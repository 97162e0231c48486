package dev.slipway.dashboard;

import dev.slipway.migrations.MigrationStatus;
import dev.slipway.deployments.DeploymentStatus;
import dev.slipway.api.ApiException;
import dev.slipway.api.AppUrls;
import dev.slipway.api.Requests;
import dev.slipway.dashboard.Html.Safe;
import dev.slipway.deployments.Deployment;
import dev.slipway.deployments.DeploymentService;
import dev.slipway.deployments.DeploymentStore;
import dev.slipway.logs.LogEntry;
import dev.slipway.logs.LogHandlers;
import dev.slipway.logs.LogStore;
import dev.slipway.migrations.Migration;
import dev.slipway.migrations.MigrationStore;
import dev.slipway.projects.Project;
import dev.slipway.projects.ProjectStore;
import dev.slipway.requestlogs.RequestLine;
import dev.slipway.requestlogs.RequestLogHandlers;
import dev.slipway.requestlogs.RequestLogStore;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;

import java.util.List;
import java.util.Optional;

/**
 * A deployment or a migration: its fields and its log. The log already written is in the page; the
 * script follows the rest live from {@code …/logs}, the API's own log stream behind the session.
 */
public final class RunPages {
    static final int LOG_IN_PAGE = 5000;
    static final int REQUESTS_IN_PAGE = 50;
    /** How far back from a failed run's end its failure line is looked for. */
    private static final int FAILURE_LINES = 50;

    private final DeploymentStore deployments;
    private final MigrationStore migrations;
    private final ProjectStore projects;
    private final DeploymentService service;
    private final LogStore logStore;
    private final LogHandlers logs;
    private final ProjectPages projectPages;
    private final AppUrls urls;
    private final RequestLogStore requestLogs;

    public RunPages(DeploymentStore deployments, MigrationStore migrations, ProjectStore projects, DeploymentService service,
                    LogStore logStore, LogHandlers logs, ProjectPages projectPages, AppUrls urls, RequestLogStore requestLogs) {
        this.requestLogs = requestLogs;
        this.deployments = deployments;
        this.migrations = migrations;
        this.projects = projects;
        this.service = service;
        this.logStore = logStore;
        this.logs = logs;
        this.projectPages = projectPages;
        this.urls = urls;
    }

    public void deployment(Context ctx, Viewer viewer) {
        Deployment d = ownedDeployment(ctx, viewer);
        Project p = projects.find(d.projectId()).orElseThrow();
        boolean production = d.id().equals(p.productionDeploymentId());
        Optional<String> refusal = service.rollbackRefusal(p, d);
        Safe rollback = refusal.isPresent() ? Html.EMPTY : Html.fmt("""
                <form method="post" action="/dashboard/deployments/%s/rollback">%s
                <button type="submit" data-confirm="Roll production of %s back to %s?">Roll back to this</button>
                </form>""", d.id(), Layout.csrf(viewer), p.name(), d.id());
        String address = d.status().label().equals("live") ? urls.deployment(p.name(), d.shortId()) : null;
        Safe fields = Html.fmt("""
                <dt>Status</dt><dd id="run-status">%s%s</dd>
                <dt>Project</dt><dd><a href="/dashboard/projects/%s">%s</a></dd>
                <dt>Commit</dt><dd>%s %s</dd>
                <dt>Branch</dt><dd>%s</dd>
                %s%s%s
                <dt>Address</dt><dd>%s</dd>
                <dt>Created</dt><dd>%s</dd>
                <dt>Live since</dt><dd>%s</dd>
                <dt>Finished</dt><dd>%s</dd>
                <dt>Build time</dt><dd>%s</dd>
                <dt>Region</dt><dd>%s · %s</dd>""",
                Format.badge(d.status().label()),
                Html.when(production, Html.fmt(" <span class=\"badge badge-production\">production</span>")),
                p.id(), p.name(), Format.sha(d.commitSha()), Format.orDash(d.commitMessage()), Format.orDash(d.branch()),
                d.rollbackOf() == null ? Html.EMPTY : Html.fmt("<dt>Rollback to</dt><dd><a href=\"/dashboard/deployments/%s\"><code>%s</code></a></dd>",
                        d.rollbackOf(), d.rollbackOf()),
                d.rolledBackFrom() == null ? Html.EMPTY : Html.fmt("<dt>Replaced</dt><dd><a href=\"/dashboard/deployments/%s\"><code>%s</code></a></dd>",
                        d.rolledBackFrom(), d.rolledBackFrom()),
                d.migrationId() == null ? Html.EMPTY : Html.fmt("<dt>Migration</dt><dd><a href=\"/dashboard/migrations/%s\"><code>%s</code></a></dd>",
                        d.migrationId(), d.migrationId()),
                address == null ? Html.fmt("<span class=\"muted\">—</span>") : Html.fmt("<a href=\"%s\" rel=\"noopener\">%s</a>", address, address),
                Format.time(d.createdAt()), Format.timeOr(d.liveAt(), "—"), Format.timeOr(d.finishedAt(), "—"),
                d.buildDurationSeconds() == null ? "—" : d.buildDurationSeconds() + " s", d.region(), d.instanceType());
        page(ctx, viewer, "Deployment " + d.id(), p, Html.fmt("<code>%s</code>", d.id()), rollback, fields, d.id(),
                "/dashboard/deployments/" + d.id() + "/logs", d.status().finished(),
                d.status() == DeploymentStatus.FAILED ? failure(d.id(), "Deployment failed: ") : Html.EMPTY, requests(ctx, d));
    }

    /** The newest requests the router relayed to the deployment, all or of one status class ({@code ?requests=5xx}). */
    private Safe requests(Context ctx, Deployment d) {
        String only = ctx.queryParam("requests");
        List<RequestLine> lines = requestLogs.search(d.id(), RequestLogHandlers.filter(only, null), 0, REQUESTS_IN_PAGE);
        Safe filters = Html.fmt("""
                <p class="filters">Show: <a href="?"%s>all</a> · <a href="?requests=4xx"%s>4xx</a> · <a href="?requests=5xx"%s>5xx</a></p>""",
                current(only == null), current("4xx".equals(only)), current("5xx".equals(only)));
        Safe body = lines.isEmpty() ? Html.fmt("<p class=\"empty\">No %srequest reached this deployment yet.</p>", only == null ? "" : only + " ")
                : Html.fmt("""
                        <div class="table-wrap">
                        <table class="requests">
                          <caption class="visually-hidden">Requests, newest first</caption>
                          <thead><tr><th scope="col">Time</th><th scope="col">Request</th><th scope="col">Status</th>
                          <th scope="col">Duration</th><th scope="col">Bytes</th><th scope="col">Client</th></tr></thead>
                          <tbody>%s</tbody>
                        </table>
                        </div>""", Html.each(lines, RunPages::requestRow));
        return Html.fmt("""
                <section aria-labelledby="requests-title">
                  <h2 id="requests-title">Requests</h2>
                  %s%s
                  <p class="muted">The newest %s; all of them, by status and path: <code>GET /v1/deployments/%s/requests</code>.</p>
                </section>""", filters, body, Integer.toString(REQUESTS_IN_PAGE), d.id());
    }

    private static Safe current(boolean on) {
        return Html.when(on, Html.fmt(" aria-current=\"page\""));
    }

    private static Safe requestRow(RequestLine l) {
        return Html.fmt("<tr data-status=\"%s\"><td><time datetime=\"%s\">%s</time></td><td><code>%s %s</code></td><td>%s</td>"
                        + "<td>%s ms</td><td>%s</td><td>%s</td></tr>", Integer.toString(l.status()), l.at().toString(),
                l.at().toString().substring(11, 19), l.method(), l.path(), Integer.toString(l.status()),
                String.format(java.util.Locale.ROOT, "%.1f", l.durationMs()), Long.toString(l.bytes()), l.client());
    }

    public void migration(Context ctx, Viewer viewer) {
        Migration m = ownedMigration(ctx, viewer);
        Project p = projects.find(m.projectId()).orElseThrow();
        Safe fields = Html.fmt("""
                <dt>Status</dt><dd id="run-status">%s</dd>
                <dt>Project</dt><dd><a href="/dashboard/projects/%s">%s</a></dd>
                <dt>Source</dt><dd>%s</dd>
                <dt>Branch</dt><dd>%s</dd>
                <dt>Framework</dt><dd>%s</dd>
                <dt>Database</dt><dd>%s</dd>
                <dt>Deployment</dt><dd>%s</dd>
                <dt>Created</dt><dd>%s</dd>
                <dt>Started</dt><dd>%s</dd>
                <dt>Completed</dt><dd>%s</dd>""",
                Format.badge(m.status().label()), p.id(), p.name(), m.repo() == null ? m.source() : m.source() + ": " + m.repo(),
                Format.orDash(m.branch()), Format.orDash(m.framework()),
                m.databaseType() == null ? "none" : m.databaseType() + " (" + m.databaseAction() + ")",
                m.deploymentId() == null ? Html.fmt("<span class=\"muted\">—</span>")
                        : Html.fmt("<a href=\"/dashboard/deployments/%s\"><code>%s</code></a>", m.deploymentId(), m.deploymentId()),
                Format.time(m.createdAt()), Format.timeOr(m.startedAt(), "—"), Format.timeOr(m.completedAt(), "—"));
        page(ctx, viewer, "Migration " + m.id(), p, Html.fmt("Migration <code>%s</code>", m.id()), Html.EMPTY, fields, m.id(),
                "/dashboard/migrations/" + m.id() + "/logs", m.status().finished(),
                m.status() == MigrationStatus.FAILED ? failure(m.id(), "Migration failed: ") : Html.EMPTY, Html.EMPTY);
    }

    public void rollback(Context ctx, Viewer viewer, Form form) {
        Deployment target = ownedDeployment(ctx, viewer);
        Project p = projects.find(target.projectId()).orElseThrow();
        Optional<String> refusal = service.rollbackRefusal(p, target);
        if (refusal.isPresent()) {
            projectPages.render(ctx, 409, viewer, p, "Cannot roll back: " + refusal.get() + ".");
            return;
        }
        Deployment d;
        try {
            d = service.rollback(p, target, Requests.afterAnswer(ctx));
        } catch (ApiException e) { // production moved between the check and the rollback
            projectPages.render(ctx, e.status(), viewer, p, "Cannot roll back: " + e.getMessage() + ".");
            return;
        }
        ctx.redirect("/dashboard/deployments/" + d.id(), HttpStatus.SEE_OTHER);
    }

    public void deploymentLogs(Context ctx, Viewer viewer) throws Exception {
        Deployment d = ownedDeployment(ctx, viewer);
        logs.serve(ctx, d.id(), () -> deployments.find(d.id()).map(x -> x.status().finished()).orElse(true));
    }

    public void migrationLogs(Context ctx, Viewer viewer) throws Exception {
        Migration m = ownedMigration(ctx, viewer);
        logs.serve(ctx, m.id(), () -> migrations.find(m.id()).map(x -> x.status().finished()).orElse(true));
    }

    /**
     * A failed run's reason, from the line its failure wrote last in its log ({@code prefix} and the cause), shown
     * above everything: a long log's end is far down the page.
     */
    private Safe failure(String ownerId, String prefix) {
        return logStore.last(ownerId, FAILURE_LINES).reversed().stream().filter(e -> e.message().startsWith(prefix)).findFirst()
                .map(e -> Html.fmt("""
                        <section class="card danger" id="failure" aria-labelledby="failure-title">
                          <h2 id="failure-title">Why it failed</h2>
                          <p class="msg">%s</p>
                          <p class="muted">The log below has every line, the failure at its end.</p>
                        </section>""", e.message().substring(prefix.length())))
                .orElse(Html.EMPTY);
    }

    private void page(Context ctx, Viewer viewer, String title, Project p, Safe heading, Safe actions, Safe fields,
                      String ownerId, String stream, boolean finished, Safe failure, Safe after) {
        List<LogEntry> entries = logStore.after(ownerId, 0, LOG_IN_PAGE);
        String cursor = entries.isEmpty() ? "" : LogHandlers.encode(entries.getLast().seq());
        // a log longer than the page shows is streamed on from its last entry even when the run is over
        boolean follow = !finished || entries.size() == LOG_IN_PAGE;
        Layout.render(ctx, 200, viewer, title, Html.fmt("""
                <p class="crumbs"><a href="/dashboard/projects">Projects</a> / <a href="/dashboard/projects/%s">%s</a></p>
                <div class="title-row"><h1>%s</h1>%s</div>
                %s
                <dl class="fields">%s</dl>
                <section aria-labelledby="log-title">
                  <div class="title-row">
                    <h2 id="log-title">Log</h2>
                    <span id="log-state" class="muted" aria-live="polite">%s</span>
                  </div>
                  <ol id="log" class="log" role="log" aria-labelledby="log-title" data-stream="%s" data-after="%s" data-follow="%s" data-finished="%s">%s</ol>
                  %s
                </section>
                %s""", p.id(), p.name(), heading, actions, failure, fields, finished ? "finished" : "following live…",
                stream, cursor, follow, finished, Html.each(entries, RunPages::logLine),
                Html.when(entries.isEmpty() && finished, Html.fmt("<p class=\"empty\">This run wrote no log.</p>")), after));
    }

    private static Safe logLine(LogEntry e) {
        return Html.fmt("<li class=\"log-%s\"><time datetime=\"%s\">%s</time> <span class=\"level\">%s</span> <span class=\"msg\">%s</span></li>",
                e.level(), e.timestamp().toString(), e.timestamp().toString().substring(11, 19), e.level(), e.message());
    }

    private Deployment ownedDeployment(Context ctx, Viewer viewer) {
        String id = ctx.pathParam("deployment_id");
        return deployments.find(id).filter(d -> d.accountId().equals(viewer.accountId()))
                .orElseThrow(() -> ApiException.notFound("There is no deployment " + id + " in your account."));
    }

    private Migration ownedMigration(Context ctx, Viewer viewer) {
        String id = ctx.pathParam("migration_id");
        return migrations.find(id).filter(m -> m.accountId().equals(viewer.accountId()))
                .orElseThrow(() -> ApiException.notFound("There is no migration " + id + " in your account."));
    }
}
