package dev.slipway.server;

import dev.slipway.databases.DatabaseDumps;
import dev.slipway.domains.DomainHandlers;
import dev.slipway.api.AppUrls;
import dev.slipway.api.Gate;
import dev.slipway.api.Idempotency;
import dev.slipway.auth.Authenticator;
import dev.slipway.backup.BackupSchedule;
import dev.slipway.disk.DiskSpace;
import dev.slipway.config.ServerConfig;
import dev.slipway.dashboard.Assets;
import dev.slipway.dashboard.Auth;
import dev.slipway.dashboard.Dashboard;
import dev.slipway.dashboard.DeleteProjectPages;
import dev.slipway.dashboard.KeyPages;
import dev.slipway.dashboard.NewProjectPages;
import dev.slipway.dashboard.PasswordResetPages;
import dev.slipway.dashboard.ProjectPages;
import dev.slipway.dashboard.RunPages;
import dev.slipway.dashboard.ServicePanel;
import dev.slipway.dashboard.UsageGraphs;
import dev.slipway.dashboard.SignInPages;
import dev.slipway.dashboard.WebhookPages;
import dev.slipway.deployments.DeploymentHandlers;
import dev.slipway.deployments.DeploymentStatus;
import dev.slipway.cron.CronHandlers;
import dev.slipway.envvars.EnvHandlers;
import dev.slipway.teardown.TeardownHandlers;
import dev.slipway.docs.OpenApiDocs;
import dev.slipway.isolation.AccountAdmission;
import dev.slipway.logs.LogHandlers;
import dev.slipway.mail.Mailer;
import dev.slipway.migrations.MigrationHandlers;
import dev.slipway.net.AddressGuard;
import dev.slipway.monitoring.HealthHandlers;
import dev.slipway.monitoring.StartRecovery;
import dev.slipway.monitoring.Metrics;
import dev.slipway.net.ClientGate;
import dev.slipway.projects.ProjectHandlers;
import dev.slipway.projects.ProjectView;
import dev.slipway.pushes.PushHandlers;
import dev.slipway.pushes.PushHookStore;
import dev.slipway.ratelimit.RateLimiter;
import dev.slipway.plantstore.PlantHandlers;
import dev.slipway.source.UploadHandlers;
import dev.slipway.source.UploadIntake;
import dev.slipway.store.Dialect;
import dev.slipway.users.PasswordResets;
import dev.slipway.users.SessionStore;
import dev.slipway.users.SignInThrottle;
import dev.slipway.statuses.StatusStore;
import dev.slipway.webhooks.DeliveryStore;
import dev.slipway.webhooks.WebhookHandlers;
import dev.slipway.webhooks.WebhookService;
import io.javalin.Javalin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The fifth phase: the API, the dashboard and the sandbox, on the ports bound in the first, and the
 * housekeeping of what they keep.
 *
 * @param sandbox the sandbox's own listener, or null when it is served under the API's /sandbox
 */
record ControlPlane(Javalin api, Javalin sandbox, RateLimiter limiter, Idempotency idempotency, SessionStore sessions,
                    SignInThrottle signIns, PasswordResets resets, Mailer mailer, BackupSchedule backups, LogHandlers logs,
                    DiskSpace disk)
        implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ControlPlane.class);

    static ControlPlane start(ServerConfig config, Listeners listeners, Stores stores, Engine engine,
                              Pipelines pipelines, StartRecovery recovery, AppUrls urls, Clock clock) {
        var jdbi = stores.database().jdbi();
        RateLimiter limiter = stores.database().dialect().shared()
                ? RateLimiter.postgres(stores.database().sidePool("slipway-rate-limits", 2), clock, stores.health()::failed) : RateLimiter.inMemory(clock);
        Authenticator authenticator = new Authenticator(stores.keys(), clock);
        Gate gate = new Gate(authenticator, limiter, Routes.PUBLIC_V1, engine.admission()::refusal);
        Metrics metrics = stores.metrics();
        metrics.watch(() -> engine.runtime().list().size(), stores.dispatcher()::delivered, stores.dispatcher()::failed, clock);
        metrics.watchProcesses(pipelines.usage()::processes);
        LogHandlers logHandlers = new LogHandlers(stores.logs());
        Idempotency idempotency = new Idempotency(jdbi, clock, urls);
        SessionStore sessions = new SessionStore(jdbi, clock, stores.users());
        SignInThrottle signIns = new SignInThrottle(jdbi, clock);
        PasswordResets resets = new PasswordResets(jdbi, clock);
        Mailer mailer = stores.mailer();
        WebhookService webhooks = new WebhookService(stores.webhookEndpoints(), stores.webhookDeliveries(), stores.secrets(),
                new AddressGuard(config.webhooks().allowPrivate()), stores.dispatcher(), clock);
        UploadIntake intake = new UploadIntake(stores.uploads(), pipelines.zips(), config.deployments().uploadLimitBytes());
        DiskSpace disk = new DiskSpace(config.dataDir(), config.disk(), () -> evictForRoom(pipelines, stores),
                stores.operatorEvents()::send);
        metrics.watch(disk, stores.health());
        Dashboard dashboard = dashboard(config, engine, stores, disk, sessions, signIns, resets, mailer, authenticator,
                pipelines, intake, logHandlers, urls, new WebhookPages(stores.webhookEndpoints(), stores.webhookDeliveries(), webhooks), clock);
        BackupSchedule backups = BackupSchedule.start(config.backups(), stores.database(), config.store().databaseUrl(),
                config.dataDir(), new DatabaseDumps(jdbi, stores.secrets()), stores.operatorEvents()::send, clock);
        Routes.Handlers handlers = new Routes.Handlers(new HealthHandlers(stores.database(), stores.health(), disk,
                engine.confinement(), backups == null ? null : backups::status, recovery), metrics,
                idempotency, new ProjectHandlers(stores.projects(), urls, config.deployments().regions(),
                        projectCertificates(stores), pipelines.replicas(), pipelines.renames()),
                new UploadHandlers(stores.uploads(), intake, urls),
                new MigrationHandlers(stores.migrations(), pipelines.migrations(), stores.projects(), stores.uploads(),
                        logHandlers, urls, config.deployments().regions()),
                new DeploymentHandlers(stores.deployments(), pipelines.deployments(), stores.projects(), stores.uploads(),
                        logHandlers, urls, engine.runtime()::processes),
                new OpenApiDocs(urls, () -> listeners.sandboxBase(urls)),
                new PlantHandlers(authenticator, gate, jdbi, clock), dashboard,
                new WebhookHandlers(stores.webhookEndpoints(), stores.webhookDeliveries(), webhooks, urls, clock),
                new DomainHandlers(stores.projects(), pipelines.domains(), engine.routes(), urls),
                new PushHandlers(new PushHookStore(jdbi, stores.secrets(), clock, stores.projectCache()), stores.projects(), stores.accounts(),
                        pipelines.deployments(), stores.deployments(), urls, engine.admission()::refusal, engine.retiring()::retire),
                new EnvHandlers(stores.projects(), pipelines.deployments(), disk::requireRoom),
                new TeardownHandlers(pipelines.deletions()),
                new CronHandlers(pipelines.cronRuns(), stores.projects(), logHandlers, urls), disk,
                new dev.slipway.usage.UsageHandlers(pipelines.usageStore(), stores.projects(), clock),
                new dev.slipway.requestlogs.RequestLogHandlers(pipelines.requestLogs(), stores.deployments()),
                new dev.slipway.drains.DrainHandlers(pipelines.drains(), stores.projects(), new AddressGuard(config.webhooks().allowPrivate()),
                        urls, clock),
                new dev.slipway.alerts.AlertRuleHandlers(new dev.slipway.alerts.AlertRuleStore(jdbi), stores.projects(), clock));
        // the API and the sandbox's own port share one count of connections: one door, two ports
        ClientGate clients = ClientGate.forApi(config.clientLimits(), config.trustedProxies());
        Javalin api = ApiServer.create(listeners.api(), clients, gate, metrics, handlers, clock, listeners.sandbox() == null,
                stores.health()).start();
        try {
            Javalin sandbox = listeners.sandbox() == null ? null
                    : ApiServer.createSandbox(listeners.sandbox(), clients, metrics, handlers, clock, stores.health()).start();
            return new ControlPlane(api, sandbox, limiter, idempotency, sessions, signIns, resets, mailer, backups, logHandlers,
                    disk);
        } catch (RuntimeException e) {
            api.stop();
            if (backups != null) backups.close();
            throw e;
        }
    }

    /** The certificate of a project's domain in its view, once HTTPS issues them. */
    static ProjectView.Certificates projectCertificates(Stores stores) {
        return domain -> stores.certificates().view(domain)
                .map(c -> new ProjectView.Certificate(c.status(), c.expiresAt(), c.lastError()));
    }

    private static Dashboard dashboard(ServerConfig config, Engine engine, Stores stores, DiskSpace room, SessionStore sessions,
                                       SignInThrottle signIns, PasswordResets resets, Mailer mailer,
                                       Authenticator authenticator, Pipelines pipelines, UploadIntake intake,
                                       LogHandlers logHandlers, AppUrls urls, WebhookPages webhooks, Clock clock) {
        String publicUrl = config.listeners().publicUrl();
        boolean https = publicUrl != null && publicUrl.toLowerCase(Locale.ROOT).startsWith("https:");
        AccountAdmission admission = engine.admission();
        String isolation = engine.confinement().warning();
        // atop every signed-in page: apps not isolated, and new work refused for lack of disk space
        Supplier<String> banner = () -> {
            String disk = room.shortage().map(s -> "New deployments are refused: " + s.describe() + ".").orElse(null);
            return isolation == null ? disk : disk == null ? isolation : isolation + " " + disk;
        };
        Auth auth = new Auth(sessions, stores.accounts(), https, banner, admission::refusal);
        ProjectPages projectPages = new ProjectPages(stores.projects(), stores.deployments(), pipelines.deployments(), urls,
                projectCertificates(stores),
                id -> stores.artifacts().latestFramework(id).or(() -> stores.migrations().framework(id)),
                new ServicePanel(stores.deployments(), pipelines.cronRuns(), new UsageGraphs(pipelines.usageStore(), clock)));
        return new Dashboard(auth, new SignInPages(auth, stores.users(), signIns, mailer != null),
                new PasswordResetPages(auth, stores.users(), resets, signIns, mailer, urls),
                new KeyPages(stores.keys(), authenticator, admission::refusalOfCredentials), webhooks, projectPages,
                new DeleteProjectPages(projectPages, pipelines.deletions()),
                new NewProjectPages(stores.projects(), pipelines.migrations(), intake, config.deployments().regions(), urls),
                new RunPages(stores.deployments(), stores.migrations(), stores.projects(), pipelines.deployments(),
                        stores.logs(), logHandlers, projectPages, urls, pipelines.requestLogs()),
                new Assets());
    }

    /** Expired rate-limit windows, idempotency keys, sessions, sign-in failures, reset links, deliveries and uploads. */
    void sweep(Stores stores, Pipelines pipelines) {
        disk.shortage(); // an idle server too tells when its disk passes the reserve
        try {
            limiter.sweep();
            idempotency.sweep();
            pipelines.databases().sweep();
            sessions.sweep();
            signIns.sweep();
            resets.sweep();
            stores.webhookDeliveries().sweep(DeliveryStore.RETENTION);
            stores.commitStatuses().sweep(StatusStore.RETENTION);
            stores.uploads().sweep();
        } catch (RuntimeException e) {
            LOG.warn("housekeeping failed: {}", e.toString());
        }
    }

    /** Stops taking requests; those in flight finish. */
    @Override
    public void close() {
        logs.close(); // followed logs end now (their clients resume from the last entry), not at the stop's timeout
        api.stop();
        if (sandbox != null) sandbox.stop();
        if (backups != null) backups.close();
    }

    /** The disk is short of space: the build caches go first, then the builds no deployment needs. The bytes freed. */
    private static long evictForRoom(Pipelines pipelines, Stores stores) {
        Set<DeploymentStatus> needing = EnumSet.copyOf(DeploymentStatus.keepsArtifact());
        needing.addAll(DeploymentStatus.inFlight());
        return pipelines.builder().evictCaches() + stores.artifacts().evictUnused(Set.copyOf(DeploymentStatus.MACHINE.labels(needing)),
                Set.copyOf(DeploymentStatus.MACHINE.labels(DeploymentStatus.inFlight())));
    }
}
