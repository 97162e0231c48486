package dev.slipway.cron;

import dev.slipway.api.Access;
import dev.slipway.api.ApiException;
import dev.slipway.api.AppUrls;
import dev.slipway.api.Paging;
import dev.slipway.api.Requests;
import dev.slipway.logs.LogHandlers;
import dev.slipway.projects.Project;
import dev.slipway.projects.ProjectStore;
import dev.slipway.store.Page;
import io.javalin.http.Context;

/** {@code /v1/projects/{id}/cron-runs}: the runs of a project's cron jobs, newest first, and each one's log. */
public final class CronHandlers {
    private final CronRunStore runs;
    private final ProjectStore projects;
    private final LogHandlers logs;
    private final AppUrls urls;

    public CronHandlers(CronRunStore runs, ProjectStore projects, LogHandlers logs, AppUrls urls) {
        this.runs = runs;
        this.projects = projects;
        this.logs = logs;
        this.urls = urls;
    }

    public void list(Context ctx) {
        Project p = owned(ctx);
        Page<CronRun> page = runs.page(p.id(), Paging.request(ctx));
        ctx.json(new Page<>(page.data().stream().map(r -> CronRunView.of(r, logsUrl(p, r))).toList(), page.pagination()));
    }

    /** A run's output and what Slipway said of it; live while it runs ({@code Accept: text/event-stream}). */
    public void logs(Context ctx) throws Exception {
        Project p = owned(ctx);
        String id = ctx.pathParam("run_id");
        CronRun run = runs.find(id).filter(r -> r.projectId().equals(p.id()))
                .orElseThrow(() -> ApiException.notFound("Cron run " + id + " not found"));
        logs.serve(ctx, run.id(), () -> runs.find(run.id()).map(r -> r.status() != CronRunStatus.RUNNING).orElse(true));
    }

    private String logsUrl(Project p, CronRun r) {
        return urls.api("/v1/projects/" + p.id() + "/cron-runs/" + r.id() + "/logs");
    }

    private Project owned(Context ctx) {
        String id = ctx.pathParam("project_id");
        return Access.owned(Requests.principal(ctx), projects.find(id), Project::accountId, "Project", id);
    }
}
