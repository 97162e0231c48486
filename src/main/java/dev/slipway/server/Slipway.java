package dev.slipway.server;

import dev.slipway.accounts.AccountStore;
import dev.slipway.api.Gate;
import dev.slipway.api.Idempotency;
import dev.slipway.auth.Authenticator;
import dev.slipway.auth.KeyStore;
import dev.slipway.build.ArtifactStore;
import dev.slipway.build.BuildConfig;
import dev.slipway.build.Builder;
import dev.slipway.build.CommandRunner;
import dev.slipway.api.AppUrls;
import dev.slipway.config.ServerConfig;
import dev.slipway.dashboard.Assets;
import dev.slipway.dashboard.Auth;
import dev.slipway.dashboard.Dashboard;
import dev.slipway.dashboard.KeyPages;
import dev.slipway.dashboard.WebhookPages;
import dev.slipway.dashboard.ProjectPages;
import dev.slipway.dashboard.RunPages;
import dev.slipway.dashboard.SignInPages;
import dev.slipway.databases.AdminServers;
import dev.slipway.databases.DatabaseService;
import dev.slipway.deployments.DeploymentHandlers;
import dev.slipway.deployments.DeploymentRunner;
import dev.slipway.deployments.DeploymentService;
import dev.slipway.deployments.DeploymentStore;
import dev.slipway.deployments.RouteRestorer;
import dev.slipway.docs.OpenApiDocs;
import dev.slipway.sandbox.PlantHandlers;
import dev.slipway.isolation.Confinement;
import dev.slipway.isolation.Isolations;
import dev.slipway.isolation.NetworkPolicy;
import dev.slipway.jobs.Job;
import dev.slipway.jobs.JobStore;
import dev.slipway.jobs.Workers;
import dev.slipway.logs.LogHandlers;
import dev.slipway.logs.LogStore;
import dev.slipway.migrations.MigrationHandlers;
import dev.slipway.migrations.MigrationService;
import dev.slipway.migrations.MigrationStore;
import dev.slipway.ops.HealthHandlers;
import dev.slipway.ops.Metrics;
import dev.slipway.projects.ProjectCache;
import dev.slipway.projects.ProjectHandlers;
import dev.slipway.projects.ProjectStore;
import dev.slipway.ratelimit.RateLimiter;
import dev.slipway.router.AppsListener;
import dev.slipway.router.RouteTable;
import dev.slipway.router.Waker;
import dev.slipway.router.Wakeups;
import dev.slipway.runtime.InstanceStore;
import dev.slipway.runtime.LocalProcessRuntime;
import dev.slipway.runtime.NodeId;
import dev.slipway.runtime.RetiringPool;
import dev.slipway.runtime.RuntimeOptions;
import dev.slipway.secrets.SecretBox;
import dev.slipway.source.GitFetcher;
import dev.slipway.source.UploadHandlers;
import dev.slipway.source.UploadStore;
import dev.slipway.source.ZipExtractor;
import dev.slipway.store.ChangeNotices;
import dev.slipway.store.StatusNotices;
import dev.slipway.store.DataDir;
import dev.slipway.store.Database;
import dev.slipway.store.StoreKind;
import dev.slipway.users.FirstStart;
import dev.slipway.users.SessionStore;
import dev.slipway.users.SignInThrottle;
import dev.slipway.users.UserStore;
import dev.slipway.wake.DormantApps;
import dev.slipway.wake.ProductionInstances;
import dev.slipway.net.AddressGuard;
import dev.slipway.webhooks.DeliveryStore;
import dev.slipway.webhooks.Dispatcher;
import dev.slipway.webhooks.EndpointStore;
import dev.slipway.webhooks.Outbox;
import dev.slipway.webhooks.WebhookHandlers;
import dev.slipway.webhooks.WebhookService;
import io.javalin.Javalin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/** A running Slipway server: the store, the services, the pipelines and the two listeners, wired once. */
public final class Slipway implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Slipway.class);

    /** The data plane: apps, their routes, and the listener that serves them. */
    public record Engine(LocalProcessRuntime runtime, RetiringPool retiring, RouteTable routes, AppsListener apps,
                         Thread recovery) implements AutoCloseable {
        @Override
        public void close() {
            try {
                recovery.join(java.time.Duration.ofSeconds(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            apps.close();
            retiring.close();
            runtime.close();
        }
    }

    /** The stores the server and its tests use. */
    public record Stores(AccountStore accounts, KeyStore keys, ProjectStore projects, UploadStore uploads,
                         DeploymentStore deployments, MigrationStore migrations, LogStore logs, JobStore jobs,
                         ArtifactStore artifacts, UserStore users) {}

    private final ServerConfig config;
    private final Database database;
    private final Javalin api;
    private final Javalin sandbox;
    private final ScheduledExecutorService housekeeping;
    private final Stores stores;
    private final Engine engine;
    private final Workers workers;
    private final Dispatcher webhooks;

    private Slipway(ServerConfig config, Database database, Javalin api, Javalin sandbox, ScheduledExecutorService housekeeping,
                    Stores stores, Engine engine, Workers workers, Dispatcher webhooks) {
        this.webhooks = webhooks;
        this.config = config;
        this.database = database;
        this.api = api;
        this.sandbox = sandbox;
        this.housekeeping = housekeeping;
        this.stores = stores;
        this.engine = engine;
        this.workers = workers;
    }

    public static Slipway start(ServerConfig config, Clock clock, PrintStream out) throws IOException {
        DataDir.prepare(config.dataDir());
        String url = config.databaseUrl() != null ? config.databaseUrl() : Database.h2Url(config.dataDir());
        Database database = Database.open(url, config.databasePoolSize());
        List<AutoCloseable> opened = new ArrayList<>();
        try {
            SecretBox secrets = config.secretKey() != null ? SecretBox.fromBase64(config.secretKey())
                    : SecretBox.fromKeyFile(config.dataDir());
            var jdbi = database.jdbi();
            LogStore logs = new LogStore(jdbi, clock);
            opened.add(logs);
            BuildConfig buildConfig = BuildConfig.fromEnv(config.dataDir(), System.getenv());
            // webhooks: every state change writes its events to the outbox in its own transaction
            AtomicReference<AppUrls> urlsRef = new AtomicReference<>();
            EndpointStore webhookEndpoints = new EndpointStore(jdbi, clock);
            DeliveryStore webhookDeliveries = new DeliveryStore(jdbi, clock);
            Outbox outbox = new Outbox(webhookEndpoints, webhookDeliveries, logs, clock, urlsRef::get);
            ProjectCache projectCache = new ProjectCache(clock);
            Stores stores = new Stores(new AccountStore(jdbi, clock), new KeyStore(jdbi, clock),
                    new ProjectStore(jdbi, clock, secrets, projectCache), new UploadStore(jdbi, clock, config.dataDir()),
                    new DeploymentStore(jdbi, clock, logs, outbox), new MigrationStore(jdbi, clock, logs, outbox), logs,
                    new JobStore(jdbi, clock), new ArtifactStore(jdbi, buildConfig.artifactsDir()), new UserStore(jdbi, clock));
            // other servers sharing the store: their project changes drop our cached copies, and their
            // status changes end our long-polls
            database.listen(Map.of(ChangeNotices.PROJECTS, projectCache, StatusNotices.CHANNEL,
                    StatusNotices.to(List.of(stores.deployments().changes(), stores.migrations().changes()))));
            FirstStart firstStart = config.createDefaultAccount() ? FirstStart.begin(stores.accounts()) : null;

            // data plane
            RuntimeOptions runtimeOptions = RuntimeOptions.fromEnv(System.getenv(), config.regions());
            String nodeId = NodeId.load(config.dataDir());
            InstanceStore instances = new InstanceStore(jdbi, secrets, clock, nodeId);
            Confinement confinement = Isolations.choose(config.isolation(), jdbi, Isolations.runDir(config.dataDir(), nodeId), nodeId,
                    NetworkPolicy.of(platformAddresses(config, url), adminAddresses(config)),
                    Isolations.warmNetworks(System.getenv()));
            if (confinement.isolated()) LOG.info(confinement.summary());
            else LOG.warn("{}: {}", confinement.summary(), Confinement.NOT_ISOLATED);
            LocalProcessRuntime runtime = new LocalProcessRuntime(instances, runtimeOptions, clock, confinement);
            opened.add(runtime);
            RouteTable routes = new RouteTable(config.appsDomain());
            // wake-on-request: set once the pipelines exist; until recovery is done, wakes wait
            AtomicReference<Waker> wakerRef = new AtomicReference<>(Waker.NONE);
            AppsListener apps = AppsListener.start(config.host(), config.appsPort(), routes, runtime::restarting,
                    new Wakeups(host -> wakerRef.get().wake(host), runtime::serves, runtimeOptions.healthTimeout(), clock));
            opened.add(apps);
            ProductionInstances productionInstances = new ProductionInstances(stores.deployments(), runtime);
            RetiringPool retiring = new RetiringPool(runtime, instances, clock, runtimeOptions.retireAfter(),
                    productionInstances, routes::forgetUpstream, apps::lastRequestMillis);
            opened.add(retiring);
            AtomicReference<Javalin> apiRef = new AtomicReference<>();
            AtomicReference<Javalin> sandboxRef = new AtomicReference<>();
            AppUrls urls = new AppUrls(config.appsDomain(), apps.port(), config.publicUrl(), config.host(), () -> apiRef.get() == null ? config.apiPort() : apiRef.get().port());
            urlsRef.set(urls);
            AddressGuard addressGuard = new AddressGuard(config.webhooks().allowPrivate());
            Dispatcher dispatcher = new Dispatcher(webhookEndpoints, webhookDeliveries, secrets, addressGuard,
                    config.webhooks().retries(), clock, nodeId);
            opened.add(dispatcher);
            outbox.onCommit(dispatcher::wake);
            WebhookService webhookService = new WebhookService(webhookEndpoints, webhookDeliveries, secrets, addressGuard,
                    dispatcher, clock);

            // pipelines
            DatabaseService databases = new DatabaseService(jdbi,
                    AdminServers.of(config.postgresAdminUrl(), config.mysqlAdminUrl()), secrets, logs, clock, projectCache,
                    config.webhooks().allowPrivate());
            AtomicReference<Workers> workersRef = new AtomicReference<>();
            DeploymentService deploymentService = new DeploymentService(stores.deployments(), stores.jobs(), logs,
                    secrets, clock, runtime.isolated(), workersRef::get);
            Builder builder = new Builder(buildConfig, new CommandRunner(clock, confinement), stores.artifacts(), clock);
            ZipExtractor zips = new ZipExtractor(ZipExtractor.Limits.DEFAULTS);
            DeploymentRunner runner = new DeploymentRunner(new DeploymentRunner.Parts(stores.deployments(),
                    deploymentService, stores.projects(), new dev.slipway.migrations.MigrationRecords(stores.migrations()), logs,
                    databases, new DeploymentRunner.Sources(new GitFetcher(config.gitHosts(), GitFetcher.Limits.DEFAULTS, clock),
                    stores.uploads(), zips, config.dataDir().resolve("workspaces")),
                    new DeploymentRunner.Builds(builder, stores.artifacts(), buildConfig.keepArtifacts()),
                    new DeploymentRunner.Serving(runtime, routes, retiring, urls), clock));

            DormantApps dormant = new DormantApps(new DormantApps.Parts(stores.deployments(), deploymentService,
                    stores.projects(), stores.artifacts(), databases, logs, runtime, routes, retiring, productionInstances, clock));
            wakerRef.set(dormant);

            // control plane
            RateLimiter limiter = database.kind() == StoreKind.POSTGRES
                    ? RateLimiter.postgres(database.sidePool("slipway-rate-limits", 2), clock) : RateLimiter.inMemory(clock);
            Authenticator authenticator = new Authenticator(stores.keys(), stores.accounts(), clock);
            Gate gate = new Gate(authenticator, limiter, Routes.PUBLIC_V1);
            Metrics metrics = new Metrics();
            ProjectHandlers projectHandlers = new ProjectHandlers(stores.projects(), urls, config.regions());
            LogHandlers logHandlers = new LogHandlers(logs);
            Idempotency idempotency = new Idempotency(jdbi, clock, urls);
            SessionStore sessions = new SessionStore(jdbi, clock, stores.users());
            SignInThrottle signIns = new SignInThrottle(jdbi, clock);
            Dashboard dashboard = dashboard(config, confinement, stores, sessions, signIns, authenticator, deploymentService,
                    logHandlers, urls, new WebhookPages(webhookEndpoints, webhookDeliveries, webhookService));
            Routes.Handlers handlers = new Routes.Handlers(new HealthHandlers(database, confinement), metrics, idempotency,
                    projectHandlers,
                    new UploadHandlers(stores.uploads(), zips, urls, config.uploadLimitBytes()),
                    new MigrationHandlers(stores.migrations(), new MigrationService(jdbi, stores.migrations(),
                            stores.projects(), deploymentService, stores.jobs(), logs, clock, workersRef::get, databases),
                            stores.projects(), stores.uploads(), logHandlers, urls, config.regions()),
                    new DeploymentHandlers(stores.deployments(), deploymentService, stores.projects(), stores.uploads(),
                            logHandlers, urls),
                    new OpenApiDocs(urls, () -> sandboxRef.get() == null ? urls.api("/sandbox")
                            : "http://" + config.host() + ":" + sandboxRef.get().port() + "/sandbox"),
                    new PlantHandlers(authenticator, gate, jdbi, clock), dashboard,
                    new WebhookHandlers(webhookEndpoints, webhookDeliveries, webhookService, urls, clock));
            if (firstStart != null) firstStart.finish(stores.accounts(), stores.keys(), stores.users(), out);
            Javalin api = ApiServer.create(config.host(), config.apiPort(), gate, metrics, handlers, clock,
                    config.sandboxPort() == null).start();
            apiRef.set(api);
            if (config.sandboxPort() != null) {
                sandboxRef.set(ApiServer.createSandbox(config.host(), config.sandboxPort(), metrics, handlers, clock).start());
                opened.add(() -> sandboxRef.get().stop());
            }

            // after a restart: apps first (recovery), then their routes, then new work. The workers start
            // only then: recover() refuses to run once an app was started, and a deployment promoted while
            // the routes are restored would have its route overwritten by the old production.
            RouteRestorer restorer = new RouteRestorer(stores.deployments(), stores.projects(), stores.artifacts(), runtime, routes);
            Workers workers = new Workers(stores.jobs(), Map.of(Job.DEPLOYMENT, runner), config.buildSlots(), nodeId);
            workersRef.set(workers);
            dispatcher.start(); // independent of the recovery: the outbox of an earlier run is sent at once
            Thread recovery = Thread.ofVirtual().name("runtime-recovery").start(() -> {
                try {
                    sweepBuildLeftovers(builder);
                    runtime.recover(id -> logs.sink(id, List.of()));
                    restorer.restore();
                    retiring.resume();
                    databases.sweep();
                } catch (RuntimeException e) {
                    LOG.error("recovery after restart failed", e);
                } finally {
                    dormant.open();
                    try {
                        workers.start();
                    } catch (RuntimeException e) {
                        LOG.error("the job workers did not start", e);
                    }
                }
            });

            ScheduledExecutorService housekeeping = Executors.newSingleThreadScheduledExecutor(
                    Thread.ofPlatform().daemon().name("housekeeping").factory());
            housekeeping.scheduleWithFixedDelay(() -> sweep(limiter, idempotency, databases, sessions, signIns, webhookDeliveries,
                    stores.uploads()),
                    1, 1, TimeUnit.MINUTES);
            ServerConfig bound = config.withPorts(api.port(), apps.port());
            Javalin sandbox = sandboxRef.get();
            return new Slipway(bound, database, api, sandbox, housekeeping, stores,
                    new Engine(runtime, retiring, routes, apps, recovery), workers, dispatcher);
        } catch (RuntimeException | IOException e) {
            for (AutoCloseable c : opened.reversed()) {
                try {
                    c.close();
                } catch (Exception ignored) {
                    // best effort on a failed start
                }
            }
            database.close();
            throw e;
        }
    }

    /** The platform's own endpoints, which a sandboxed app must not reach wherever they are. */
    private static List<String> platformAddresses(ServerConfig config, String storeUrl) {
        List<String> out = new ArrayList<>(List.of(storeUrl, "http://" + config.host() + ":" + config.apiPort(),
                "http://" + config.host() + ":" + config.appsPort()));
        if (config.sandboxPort() != null) out.add("http://" + config.host() + ":" + config.sandboxPort());
        return out;
    }

    private static List<String> adminAddresses(ServerConfig config) {
        List<String> out = new ArrayList<>();
        if (config.postgresAdminUrl() != null) out.add(config.postgresAdminUrl());
        if (config.mysqlAdminUrl() != null) out.add(config.mysqlAdminUrl());
        return out;
    }

    private static void sweepBuildLeftovers(Builder builder) {
        try {
            int leftovers = builder.sweepLeftovers();
            if (leftovers > 0) LOG.info("deleted {} workspace(s) and unrecorded artifact(s) left by interrupted builds", leftovers);
        } catch (RuntimeException e) {
            LOG.warn("could not delete what interrupted builds left: {}", e.toString());
        }
    }

    private static void sweep(RateLimiter limiter, Idempotency idempotency, DatabaseService databases,
                              SessionStore sessions, SignInThrottle signIns,
                              DeliveryStore webhookDeliveries, UploadStore uploads) {
        try {
            limiter.sweep();
            idempotency.sweep();
            databases.sweep();
            sessions.sweep();
            signIns.sweep();
            webhookDeliveries.sweep(DeliveryStore.RETENTION);
            uploads.sweep();
        } catch (RuntimeException e) {
            LOG.warn("housekeeping failed: {}", e.toString());
        }
    }

    private static Dashboard dashboard(ServerConfig config, Confinement confinement, Stores stores, SessionStore sessions, SignInThrottle signIns,
                                       Authenticator authenticator, DeploymentService deployments, LogHandlers logHandlers,
                                       AppUrls urls, WebhookPages webhooks) {
        boolean https = config.publicUrl() != null && config.publicUrl().toLowerCase(java.util.Locale.ROOT).startsWith("https:");
        Auth auth = new Auth(sessions, stores.accounts(), https, confinement.isolated() ? null : Confinement.NOT_ISOLATED);
        ProjectPages projectPages = new ProjectPages(stores.projects(), stores.deployments(), deployments, urls);
        return new Dashboard(auth, new SignInPages(auth, stores.users(), signIns),
                new KeyPages(stores.keys(), authenticator), webhooks, projectPages,
                new RunPages(stores.deployments(), stores.migrations(), stores.projects(), deployments, stores.logs(),
                        logHandlers, projectPages, urls),
                new Assets());
    }

    /** The dashboard user of the first start; its password is printed once. */
    public static final String DEFAULT_USER_EMAIL = FirstStart.EMAIL;

    /** On the very first start with an empty store: one team account, its key and its dashboard user, printed once. */
    public int apiPort() { return api.port(); }
    /** The sandbox's own port, or the API port when it is served there. */
    public int sandboxPort() { return sandbox == null ? api.port() : sandbox.port(); }
    public int appsPort() { return engine.apps().port(); }
    public Engine engine() { return engine; }
    public ServerConfig config() { return config; }
    public Database database() { return database; }
    public Stores stores() { return stores; }
    public AccountStore accounts() { return stores.accounts(); }
    public KeyStore keys() { return stores.keys(); }
    public ProjectStore projects() { return stores.projects(); }
    public UserStore users() { return stores.users(); }

    /** Stops taking work and requests, lets requests in flight finish, stops the apps (they restart with the server). */
    @Override
    public void close() {
        housekeeping.shutdownNow();
        workers.close();
        api.stop();
        webhooks.close();
        if (sandbox != null) sandbox.stop();
        engine.close();
        stores.logs().close(); // the lines still queued, the apps' last ones included
        database.close();
    }
}
