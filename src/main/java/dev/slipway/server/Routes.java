package dev.slipway.server;

import dev.slipway.drains.DrainHandlers;
import dev.slipway.requestlogs.RequestLogHandlers;
import dev.slipway.api.Idempotency;
import dev.slipway.dashboard.Auth;
import dev.slipway.dashboard.Dashboard;
import dev.slipway.deployments.DeploymentHandlers;
import dev.slipway.disk.DiskSpace;
import dev.slipway.docs.OpenApiDocs;
import dev.slipway.domains.DomainHandlers;
import dev.slipway.plantstore.PlantHandlers;
import dev.slipway.migrations.MigrationHandlers;
import dev.slipway.monitoring.HealthHandlers;
import dev.slipway.monitoring.Metrics;
import dev.slipway.cron.CronHandlers;
import dev.slipway.envvars.EnvHandlers;
import dev.slipway.teardown.TeardownHandlers;
import dev.slipway.projects.ProjectHandlers;
import dev.slipway.projects.ProjectView;
import dev.slipway.pushes.PushHandlers;
import dev.slipway.source.UploadHandlers;
import dev.slipway.webhooks.WebhookHandlers;
import io.javalin.config.RoutesConfig;

import io.javalin.http.HttpStatus;
import java.util.Set;

/** The route table of the API listener: every path the control plane answers, in one place. */
public final class Routes {
    /** Paths under /v1 that need no API key (one ending in '/': every path under it). */
    public static final Set<String> PUBLIC_V1 = Set.of("/v1/openapi.json", ProjectView.GitWebhook.PATH, PushHandlers.DEPLOY_HOOK_PATH);

    public record Handlers(HealthHandlers health, Metrics metrics, Idempotency idempotency, ProjectHandlers projects,
                           UploadHandlers uploads, MigrationHandlers migrations, DeploymentHandlers deployments,
                           OpenApiDocs docs, PlantHandlers plants, Dashboard dashboard, WebhookHandlers webhooks,
                           DomainHandlers domains, PushHandlers pushes, EnvHandlers env, TeardownHandlers teardown,
                           CronHandlers cron, DiskSpace disk, dev.slipway.usage.UsageHandlers usage,
                           RequestLogHandlers requests, DrainHandlers drains, dev.slipway.alerts.AlertRuleHandlers alertRules) {}

    private Routes() {}

    /** The path as a log line may show it: a deploy hook's token (its secret) masked. */
    public static String loggable(String path) {
        return path.startsWith(PushHandlers.DEPLOY_HOOK_PATH) ? PushHandlers.DEPLOY_HOOK_PATH + "***" : path;
    }

    /** The plant-store sample API: its own bearer check and flat error shape; on the API listener or its own. */
    public static void registerSandbox(RoutesConfig r, Handlers h) {
        r.before("/sandbox/*", h.plants()::authenticate);
        r.get("/sandbox/openapi.json", h.docs()::sandbox);
        r.post("/sandbox/plants", h.plants()::create);
    }

    public static void register(RoutesConfig r, Handlers h) {
        Idempotency once = h.idempotency();
        DiskSpace room = h.disk(); // what builds or stores new files: refused with 507 below the disk's reserve
        r.get("/healthz", h.health()::alive);
        r.get("/readyz", h.health()::ready);
        r.get("/metrics", h.metrics()::scrape);
        r.get("/docs", h.docs()::page);
        r.get("/v1/openapi.json", h.docs()::v1);

        r.get("/v1/projects", h.projects()::list);
        r.post("/v1/projects", once.wrap(h.projects()::create));
        r.get("/v1/projects/{project_id}", h.projects()::get);
        r.patch("/v1/projects/{project_id}", h.projects()::update);
        r.delete("/v1/projects/{project_id}", h.teardown()::delete);
        // answers the webhook's secret: not kept by the idempotency layer, which stores answers in clear
        r.post("/v1/projects/{project_id}/git-webhook", h.pushes()::create);
        r.post("/v1/projects/{project_id}/deploy-hook", h.pushes()::createDeployHook);
        r.get("/v1/projects/{project_id}/env", h.env()::list);
        r.put("/v1/projects/{project_id}/env/{name}", once.wrap(h.env()::put));
        r.delete("/v1/projects/{project_id}/env/{name}", h.env()::delete);
        r.get("/v1/projects/{project_id}/cron-runs", h.cron()::list);
        r.get("/v1/projects/{project_id}/metrics", h.usage()::get);
        r.get("/v1/projects/{project_id}/log-drains", h.drains()::list);
        r.post("/v1/projects/{project_id}/log-drains", h.drains()::create);
        r.delete("/v1/projects/{project_id}/log-drains/{drain_id}", h.drains()::delete);
        r.get("/v1/projects/{project_id}/alert-rules", h.alertRules()::get);
        r.put("/v1/projects/{project_id}/alert-rules", h.alertRules()::put);
        r.get("/v1/projects/{project_id}/cron-runs/{run_id}/logs", h.cron()::logs);
        r.put("/v1/projects/{project_id}/domain", h.domains()::set);
        r.post("/v1/projects/{project_id}/domain/verify", once.wrap(h.domains()::verify));

        r.post("/v1/uploads", room.guard(h.uploads()::create));
        r.get("/v1/uploads/{upload_id}", h.uploads()::get);

        r.get("/v1/migrations", h.migrations()::list);
        r.post("/v1/migrations", room.guard(once.wrap(h.migrations()::create)));
        r.get("/v1/migrations/{migration_id}", h.migrations()::get);
        r.get("/v1/migrations/{migration_id}/logs", h.migrations()::logs);

        r.get("/v1/deployments", h.deployments()::list);
        r.post("/v1/deployments", room.guard(once.wrap(h.deployments()::create)));
        r.get("/v1/deployments/{deployment_id}", h.deployments()::get);
        r.post("/v1/deployments/{deployment_id}/rollback", once.wrap(h.deployments()::rollback));
        r.post("/v1/deployments/{deployment_id}/promote", once.wrap(h.deployments()::promote));
        r.post("/v1/deployments/{deployment_id}/cancel", once.wrap(h.deployments()::cancel));
        r.get("/v1/deployments/{deployment_id}/logs", h.deployments()::logs);
        r.get("/v1/deployments/{deployment_id}/requests", h.requests()::list);

        // creating and rotating answer a secret: not kept by the idempotency layer, which stores answers in clear
        r.get("/v1/webhooks", h.webhooks()::list);
        r.post("/v1/webhooks", h.webhooks()::create);
        r.get("/v1/webhooks/{webhook_id}", h.webhooks()::get);
        r.patch("/v1/webhooks/{webhook_id}", h.webhooks()::update);
        r.delete("/v1/webhooks/{webhook_id}", h.webhooks()::delete);
        r.post("/v1/webhooks/{webhook_id}/rotate-secret", h.webhooks()::rotate);
        r.post("/v1/webhooks/{webhook_id}/test", h.webhooks()::test);
        r.get("/v1/webhooks/{webhook_id}/deliveries", h.webhooks()::deliveries);
        r.post("/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver", h.webhooks()::redeliver);

        // a git host's push deliveries: no API key, the host's signature over the body is the proof
        r.post(ProjectView.GitWebhook.PATH + "{hook_id}", room.guard(h.pushes()::receive));
        // a deploy hook: the secret token in its URL is the proof
        r.post(PushHandlers.DEPLOY_HOOK_PATH + "{token}", room.guard(h.pushes()::deploy));

        registerDashboard(r, h.dashboard(), room);
    }

    /** The web dashboard: pages for people, signed in with a session cookie (never under /v1). */
    private static void registerDashboard(RoutesConfig r, Dashboard d, DiskSpace room) {
        Auth a = d.auth();
        r.get("/", ctx -> ctx.redirect("/dashboard", HttpStatus.FOUND));
        r.get("/dashboard", d::home);
        r.get("/dashboard/assets/{file}", d.assets()::serve);
        r.get("/dashboard/sign-in", d.signIn()::form);
        r.post("/dashboard/sign-in", d.signIn()::submit);
        r.post("/dashboard/sign-out", a.form(d.signIn()::signOut));
        r.get("/dashboard/password-reset", d.passwordReset()::form);
        r.post("/dashboard/password-reset", d.passwordReset()::request);
        r.get("/dashboard/password-reset/{token}", d.passwordReset()::chooseForm);
        r.post("/dashboard/password-reset/{token}", d.passwordReset()::choose);

        r.get("/dashboard/projects", a.page(d.projects()::list));
        r.get("/dashboard/projects/new", a.page(d.newProject()::form));
        r.post("/dashboard/projects/new", room.guard(a.form(d.newProject()::create)));
        r.post("/dashboard/projects/new/upload", room.guard(d.newProjectUpload()));
        r.get("/dashboard/projects/{project_id}", a.page(d.projects()::show));
        r.post("/dashboard/projects/{project_id}/deploy", room.guard(a.form(d.projects()::deploy)));
        r.get("/dashboard/projects/{project_id}/delete", a.page(d.deleteProject()::confirm));
        r.post("/dashboard/projects/{project_id}/delete", a.form(d.deleteProject()::delete));
        r.get("/dashboard/deployments/{deployment_id}", a.page(d.runs()::deployment));
        r.get("/dashboard/deployments/{deployment_id}/logs", a.stream(d.runs()::deploymentLogs));
        r.post("/dashboard/deployments/{deployment_id}/rollback", a.form(d.runs()::rollback));
        r.get("/dashboard/migrations/{migration_id}", a.page(d.runs()::migration));
        r.get("/dashboard/migrations/{migration_id}/logs", a.stream(d.runs()::migrationLogs));

        // Settings: one tab per page (Layout.SETTINGS lists them)
        r.get("/dashboard/settings", d::settings);
        r.get("/dashboard/settings/api-keys", a.page(d.keys()::list));
        r.post("/dashboard/settings/api-keys", a.form(d.keys()::create));
        r.get("/dashboard/settings/api-keys/{key_id}/revoke", a.page(d.keys()::confirmRevoke));
        r.post("/dashboard/settings/api-keys/{key_id}/revoke", a.form(d.keys()::revoke));
        r.get("/dashboard/settings/webhooks", a.page(d.webhooks()::list));
        r.post("/dashboard/settings/webhooks", a.form(d.webhooks()::create));
        r.get("/dashboard/settings/webhooks/{webhook_id}", a.page(d.webhooks()::show));
        r.post("/dashboard/settings/webhooks/{webhook_id}/test", a.form(d.webhooks()::test));
        r.post("/dashboard/settings/webhooks/{webhook_id}/enable", a.form(d.webhooks()::enable));
        r.post("/dashboard/settings/webhooks/{webhook_id}/disable", a.form(d.webhooks()::disable));
        r.get("/dashboard/settings/webhooks/{webhook_id}/delete", a.page(d.webhooks()::confirmDelete));
        r.post("/dashboard/settings/webhooks/{webhook_id}/delete", a.form(d.webhooks()::delete));
    }
}
