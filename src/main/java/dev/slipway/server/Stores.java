package dev.slipway.server;

import dev.slipway.accounts.AccountStore;
import dev.slipway.api.AppUrls;
import dev.slipway.auth.KeyStore;
import dev.slipway.build.ArtifactStore;
import dev.slipway.config.ServerConfig;
import dev.slipway.deployments.DeploymentStatus;
import dev.slipway.mail.Mailer;
import dev.slipway.monitoring.Metrics;
import dev.slipway.deployments.DeploymentStore;
import dev.slipway.jobs.JobStore;
import dev.slipway.logs.LogStore;
import dev.slipway.migrations.MigrationStatus;
import dev.slipway.migrations.MigrationStore;
import dev.slipway.net.AddressGuard;
import dev.slipway.projects.ProjectCache;
import dev.slipway.projects.ProjectGitStore;
import dev.slipway.projects.ProjectStore;
import dev.slipway.runtime.NodeId;
import dev.slipway.secrets.SecretBox;
import dev.slipway.source.UploadStore;
import dev.slipway.statuses.StatusOutbox;
import dev.slipway.statuses.StatusSender;
import dev.slipway.statuses.StatusStore;
import dev.slipway.store.ChangeNotices;
import dev.slipway.store.Database;
import dev.slipway.store.StatusNotices;
import dev.slipway.tls.CertificateStore;
import dev.slipway.users.UserStore;
import dev.slipway.webhooks.DeliveryStore;
import dev.slipway.webhooks.Dispatcher;
import dev.slipway.webhooks.EndpointStore;
import dev.slipway.store.StoreHealth;
import dev.slipway.webhooks.OperatorEvents;
import dev.slipway.webhooks.Outbox;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The second phase: the store and everything that writes to it. Every state change writes its webhook
 * events to the outbox in its own transaction, so the webhook dispatcher that the outbox wakes is made
 * here too (it starts sending only when the server is up).
 */
public record Stores(Database database, SecretBox secrets, String nodeId, ProjectCache projectCache,
                     AccountStore accounts, KeyStore keys, ProjectStore projects, UploadStore uploads,
                     DeploymentStore deployments, MigrationStore migrations, LogStore logs, JobStore jobs,
                     ArtifactStore artifacts, UserStore users, EndpointStore webhookEndpoints,
                     DeliveryStore webhookDeliveries, Dispatcher dispatcher, CertificateStore certificates,
                     StatusStore commitStatuses, StatusSender statusSender,
                     OperatorEvents operatorEvents, StoreHealth health, Outbox outbox, Metrics metrics, Mailer mailer)
        implements AutoCloseable {

    private static final UploadStore.PendingRuns PENDING_RUNS = new UploadStore.PendingRuns(
            DeploymentStatus.MACHINE.labels(DeploymentStatus.cancellable()),
            MigrationStatus.MACHINE.labels(MigrationStatus.active()));

    /** @param database the open store ({@link StoreOpening}); closed here if the rest fails */
    static Stores open(ServerConfig config, Database database, AppUrls urls, Clock clock) throws IOException {
        LogStore logs = null;
        Dispatcher dispatcher = null;
        Mailer mailer = null;
        StatusSender statusSender = null;
        try {
            SecretBox secrets = config.store().secretKey() != null ? SecretBox.fromBase64(config.store().secretKey())
                    : SecretBox.fromKeyFile(config.dataDir());
            String nodeId = NodeId.load(config.dataDir());
            var jdbi = database.jdbi();
            logs = new LogStore(jdbi, clock);
            EndpointStore endpoints = new EndpointStore(jdbi, clock);
            DeliveryStore deliveries = new DeliveryStore(jdbi, clock);
            mailer = Mailer.of(config.mail(), config.listeners().appsDomain(), clock);
            dispatcher = new Dispatcher(endpoints, deliveries, secrets, new AddressGuard(config.webhooks().allowPrivate()),
                    config.webhooks().retries(), clock, nodeId, mailer);
            Outbox outbox = new Outbox(endpoints, deliveries, logs, clock, urls, dispatcher::wake);
            StatusStore statuses = new StatusStore(jdbi, clock);
            statusSender = new StatusSender(statuses, new ProjectGitStore(jdbi, secrets), config.deployments().gitHosts(), logs,
                    config.webhooks().retries(), clock, nodeId);
            Metrics metrics = new Metrics();
            DeploymentStore.Listener deploymentEvents = DeploymentStore.Listener.all(outbox,
                    new StatusOutbox(statuses, urls, statusSender::wake), (h, d) -> {
                        if (d.status() != DeploymentStatus.LIVE && d.status() != DeploymentStatus.FAILED) return;
                        metrics.deploymentFinished(d.status().label(), Duration.between(d.createdAt(), clock.instant()),
                                d.buildDurationSeconds() == null ? null : Duration.ofSeconds(d.buildDurationSeconds()));
                    });
            ProjectCache projectCache = new ProjectCache(clock);
            OperatorEvents operatorEvents = new OperatorEvents(jdbi, outbox, endpoints, dispatcher);
            operatorEvents.remember();
            Stores stores = new Stores(database, secrets, nodeId, projectCache, new AccountStore(jdbi, clock),
                    new KeyStore(jdbi, clock), new ProjectStore(jdbi, clock, secrets, projectCache, config.domains().proof(), outbox),
                    new UploadStore(jdbi, clock, config.dataDir(), PENDING_RUNS), new DeploymentStore(jdbi, clock, logs, deploymentEvents),
                    new MigrationStore(jdbi, clock, logs, outbox), logs, new JobStore(jdbi, clock),
                    new ArtifactStore(jdbi, config.build().artifactsDir()), new UserStore(jdbi, clock), endpoints,
                    deliveries, dispatcher, new CertificateStore(jdbi, secrets, clock, outbox), statuses, statusSender,
                    operatorEvents, new StoreHealth(database, clock, operatorEvents::send), outbox, metrics, mailer);
            // other servers sharing the store: their project changes drop our cached copies, and their
            // status changes end our long-polls
            database.listen(Map.of(ChangeNotices.PROJECTS, projectCache, StatusNotices.CHANNEL,
                    StatusNotices.to(List.of(stores.deployments().changes(), stores.migrations().changes()))));
            // the embedded store's only writer is this server: it tells its own cache of every write
            if (!database.dialect().shared()) {
                dev.slipway.store.EmbeddedWrites.install(jdbi, () -> projectCache.changed(null));
                projectCache.toldOfEveryWrite();
            }
            return stores;
        } catch (RuntimeException | IOException e) {
            if (dispatcher != null) dispatcher.close();
            if (mailer != null) mailer.close();
            if (statusSender != null) statusSender.close();
            if (logs != null) logs.close();
            database.close();
            throw e;
        }
    }

    static String storeUrl(ServerConfig config) {
        return config.store().databaseUrl() != null ? config.store().databaseUrl() : Database.h2Url(config.dataDir());
    }

    /** The lines still queued are written (the apps' last ones included) before the store closes. */
    @Override
    public void close() {
        health.close();
        dispatcher.close();
        if (mailer != null) mailer.close();
        statusSender.close();
        logs.close();
        database.close();
    }
}
