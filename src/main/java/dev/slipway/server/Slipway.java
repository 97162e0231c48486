package dev.slipway.server;

import dev.slipway.accounts.AccountStore;
import dev.slipway.api.AppUrls;
import dev.slipway.auth.KeyStore;
import dev.slipway.config.ServerConfig;
import dev.slipway.edge.EdgeLink;
import dev.slipway.isolation.Isolations;
import dev.slipway.jobs.Workers;
import dev.slipway.monitoring.StartRecovery;
import dev.slipway.projects.ProjectStore;
import dev.slipway.router.AppsListener;
import dev.slipway.net.ClientGate;
import dev.slipway.router.Edge;
import dev.slipway.tls.AppsTls;
import dev.slipway.router.Wakeups;
import dev.slipway.runtime.RecoveryReport;
import dev.slipway.store.DataDir;
import dev.slipway.store.Database;
import dev.slipway.users.FirstStart;
import dev.slipway.users.UserStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * A running Slipway server, composed in phases, each a small class that takes the ones before it:
 * {@link Listeners} (the ports) → {@link Stores} → {@link Engine} (the data plane) → {@link Pipelines}
 * (services, builds, job workers) → {@link ControlPlane} (API, dashboard, sandbox), then the apps listener.
 */
public final class Slipway implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Slipway.class);

    /** The dashboard user of the first start; its password is printed once. */
    public static final String DEFAULT_USER_EMAIL = FirstStart.EMAIL;

    private final ServerConfig config;
    private final Stores stores;
    private final Engine engine;
    private final Pipelines pipelines;
    private final ControlPlane control;
    /** Null when an edge process serves the apps. */
    private final AppsListener apps;
    /** Null when this server serves the apps itself. */
    private final EdgeLink edge;
    /** Null when HTTPS is off. */
    private final AppsTls tls;
    private final Thread recovery;
    /** Set when the server stops: guards the start of its loops at the end of a recovery that may still run then. */
    private final AtomicBoolean stopped;
    private final ScheduledExecutorService housekeeping;

    private Slipway(ServerConfig config, Stores stores, Engine engine, Pipelines pipelines, ControlPlane control,
                    AppsListener apps, EdgeLink edge, AppsTls tls, Thread recovery, AtomicBoolean stopped,
                    ScheduledExecutorService housekeeping) {
        this.edge = edge;
        this.tls = tls;
        this.config = config;
        this.stores = stores;
        this.engine = engine;
        this.pipelines = pipelines;
        this.control = control;
        this.apps = apps;
        this.recovery = recovery;
        this.stopped = stopped;
        this.housekeeping = housekeeping;
    }

    public static Slipway start(ServerConfig config, Clock clock, PrintStream out) throws IOException {
        KeyFiles.requireClosed(config);
        DataDir.prepare(config.dataDir()); // the store, the edge's socket and log, the node id: all in it
        StoreOpening store = StoreOpening.begin(config);
        Listeners listeners;
        try {
            listeners = Listeners.bind(config);
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
        Deque<AutoCloseable> opened = new ArrayDeque<>();
        opened.push(store);
        opened.push(listeners);
        try {
            AppUrls urls = listeners.urls(config);
            Isolations.Choice isolation = Engine.isolate(config, listeners);
            opened.push(isolation::abandon);
            Stores stores = Stores.open(config, store.take(), urls, clock);
            opened.push(stores);
            FirstStart firstStart = config.store().createDefaultAccount() ? FirstStart.begin(stores.accounts()) : null;
            Engine engine = Engine.start(config, stores, isolation, clock);
            opened.push(engine);
            Pipelines pipelines = Pipelines.create(config, stores, engine, urls, clock);
            opened.push(pipelines.workers());
            if (firstStart != null) firstStart.finish(stores.accounts(), stores.keys(), stores.users(), out);
            StartRecovery recovering = new StartRecovery(clock);
            ControlPlane control = ControlPlane.start(config, listeners, stores, engine, pipelines, recovering, urls, clock);
            opened.push(control);
            AppsTls tls = config.tls().httpsPort() == null ? null : AppsTls.create(config.tls(), listeners.appsHttps(),
                    config.listeners().appsDomain(), stores.certificates(), certificateDomains(stores), engine.routes()::hasDomain,
                    stores.nodeId(), clock);
            if (tls != null) opened.push(tls);
            // until the recovery below is done, a wake waits (DormantApps.open)
            AppsListener apps = null;
            if (listeners.edge() != null) {
                listeners.edge().serve(engine.routes(), engine.runtime()::serves, engine.runtime()::restarting, pipelines.dormant(),
                        engine.recent(), tls);
                engine.runtime().onServingChange(listeners.edge()::servingChanged);
            } else {
                apps = AppsListener.start(listeners.apps(), engine.routes(), engine.runtime()::restarting,
                        new Wakeups(pipelines.dormant(), engine.runtime()::serves, config.runtime().healthTimeout(), clock),
                        engine.recent(), tls == null ? Edge.NONE : tls.edge(),
                        ClientGate.forApps(config.clientLimits(), config.trustedProxies()));
                opened.push(apps);
            }
            if (tls != null) tls.start(); // the CA's challenges are answered from here on
            stores.dispatcher().start(); // independent of the recovery: the outbox of an earlier run is sent at once
            stores.statusSender().start();
            EdgeLink edge = listeners.edge();
            AtomicBoolean stopped = new AtomicBoolean();
            Thread recovery = Thread.ofVirtual().name("runtime-recovery").start(() -> recover(stores, engine, pipelines, edge, stopped, recovering));
            ScheduledExecutorService housekeeping = Executors.newSingleThreadScheduledExecutor(
                    Thread.ofPlatform().daemon().name("housekeeping").factory());
            housekeeping.scheduleWithFixedDelay(() -> control.sweep(stores, pipelines), 1, 1, TimeUnit.MINUTES);
            pipelines.usage().start();
            pipelines.requestLogWriter().start();
            pipelines.drainShipper().start();
            // where the operator's alerts go while the store is away: read while it is here
            housekeeping.scheduleWithFixedDelay(stores.operatorEvents()::remember, 15, 15, TimeUnit.SECONDS);
            housekeeping.scheduleWithFixedDelay(() -> count(stores, clock), 0, 15, TimeUnit.SECONDS);
            ServerConfig bound = config.toBuilder().ports(listeners.api().port(), listeners.appsPort())
                    .sandboxPort(listeners.sandbox() == null ? null : listeners.sandbox().port())
                    .appsHttpsPort(listeners.appsHttpsPort()).build();
            return new Slipway(bound, stores, engine, pipelines, control, apps, listeners.edge(), tls, recovery, stopped, housekeeping);
        } catch (RuntimeException | IOException e) {
            while (!opened.isEmpty()) {
                try {
                    opened.pop().close();
                } catch (Exception ignored) {
                    // best effort on a failed start
                }
            }
            throw e;
        }
    }

    /** The domains that get certificates from the ACME CA: the custom domains whose control is proven. */
    private static Supplier<Collection<String>> certificateDomains(Stores stores) {
        return stores.projects()::verifiedDomains;
    }

    /** What the metrics show of the store's state, asked every 15 s (never at a scrape): skipped while the store is away. */
    private static void count(Stores stores, Clock clock) {
        try {
            var queue = stores.jobs().queue();
            stores.metrics().counted(queue.waiting(), queue.oldest().map(o -> Duration.between(o, clock.instant())).orElse(Duration.ZERO),
                    stores.certificates().soonestExpiry());
        } catch (RuntimeException away) {
            // the store is away: /metrics says so (slipway_store_up), and the last count stays
        }
    }

    /**
     * After a restart: apps first, then their routes, then new work. The workers start only then: recover()
     * refuses to run once an app was started, and a deployment promoted while the routes are restored would
     * have its route overwritten by the old production.
     */
    private static void recover(Stores stores, Engine engine, Pipelines pipelines, EdgeLink edge, AtomicBoolean stopped,
                                StartRecovery recovering) {
        try {
            sweepBuildLeftovers(pipelines);
            RecoveryReport apps = engine.runtime().recover(id -> stores.logs().sink(stores.deployments().outputLogOf(id), List.of()));
            pipelines.restorer().restore();
            if (edge != null) edge.publish(); // until now an adopted edge serves the routes the previous server sent it
            engine.retiring().resume();
            pipelines.databases().sweep();
            recovering.done(apps);
        } catch (RuntimeException e) {
            recovering.failed();
            LOG.error("recovery after restart failed", e);
        } finally {
            startLoops(pipelines, edge, stopped);
        }
    }

    /** After the recovery, unless the server stopped meanwhile: a loop started then would outlive its store. */
    private static void startLoops(Pipelines pipelines, EdgeLink edge, AtomicBoolean stopped) {
        if (edge != null) edge.publish();
        pipelines.dormant().open(); // the wakes that waited for the recovery go on
        synchronized (stopped) {
            if (stopped.get()) {
                LOG.info("the server stopped during its start's recovery: its job workers and loops were not started");
                return;
            }
            pipelines.domains().start(); // after the routes: a domain verified now enters them
            try {
                pipelines.workers().start(pipelines.runners());
            } catch (RuntimeException e) {
                LOG.error("the job workers did not start", e);
            }
            pipelines.cron().start(); // after the recovery, which sweeps every cell it did not adopt
        }
    }

    private static void sweepBuildLeftovers(Pipelines pipelines) {
        try {
            int leftovers = pipelines.builder().sweepLeftovers();
            if (leftovers > 0) LOG.info("deleted {} workspace(s) and unrecorded artifact(s) left by interrupted builds", leftovers);
        } catch (RuntimeException e) {
            LOG.warn("could not delete what interrupted builds left: {}", e.toString());
        }
    }

    /**
     * Waits until the start's recovery (adopting or restarting the apps of an earlier run, then their routes) is done:
     * it sweeps what it does not adopt, so a cell started beside it, not through the workers, would be swept.
     */
    public boolean awaitRecovery(Duration timeout) throws InterruptedException {
        return recovery.join(timeout);
    }

    public int apiPort() { return config.listeners().apiPort(); }
    /** The sandbox's own port, or the API port when it is served there. */
    public int sandboxPort() {
        Integer own = config.listeners().sandboxPort();
        return own == null ? config.listeners().apiPort() : own;
    }
    public int appsPort() { return config.listeners().appsPort(); }
    /** The apps HTTPS listener's port; null when HTTPS is off. */
    public Integer appsHttpsPort() { return config.tls().httpsPort(); }
    /** The edge process serving the apps; null when this server serves them itself. */
    public EdgeLink edge() { return edge; }
    /** Automatic HTTPS; null when it is off. */
    public AppsTls tls() { return tls; }
    public Engine engine() { return engine; }
    public Workers workers() { return pipelines.workers(); }

    /** What samples the apps' use every few seconds (a test takes a sample when it wants one). */
    public dev.slipway.usage.UsageSampler usage() { return pipelines.usage(); }

    /** Writes the router's request lines now (it does every second). */
    public dev.slipway.requestlogs.RequestLogWriter requestLogs() { return pipelines.requestLogWriter(); }
    /** The configuration with the ports as bound. */
    public ServerConfig config() { return config; }
    public Database database() { return stores.database(); }
    public Stores stores() { return stores; }
    public AccountStore accounts() { return stores.accounts(); }
    public KeyStore keys() { return stores.keys(); }
    public ProjectStore projects() { return stores.projects(); }
    public UserStore users() { return stores.users(); }

    /** Stops taking work and requests, lets requests in flight finish, stops the apps (they restart with the server). */
    @Override
    public void close() {
        stop(false);
    }

    /**
     * As {@link #close}, but the apps keep running (what an operator's stop and an upgrade do): the next start adopts
     * them as they are.
     */
    public void leave() {
        stop(true);
    }

    private void stop(boolean leaveApps) {
        synchronized (stopped) {
            stopped.set(true); // a recovery still under way starts no loop from now on
        }
        try {
            engine.admission().close(); // first: at the JVM's exit the embedded store may close before the rest is done
        } catch (RuntimeException e) {
            LOG.info("the store keeps what this server's start found about its sandbox: {}", e.toString());
        }
        // each part is stopped even when one before it failed: a part left running outlives the store it writes to
        List<RuntimeException> failed = new ArrayList<>();
        for (Runnable step : List.<Runnable>of(housekeeping::shutdownNow, pipelines.workers()::close, pipelines.cron()::close,
                pipelines.domains()::close, pipelines.domainRoutes()::close, pipelines.deletedElsewhere()::close,
                pipelines.replicas()::close, pipelines.renames()::close, pipelines.usage()::close,
                pipelines.requestLogWriter()::close, pipelines.drainShipper()::close, control::close, this::joinRecovery,
                () -> { if (tls != null) tls.close(); }, () -> closeApps(leaveApps),
                leaveApps ? engine::leave : engine::close, stores::close)) { // the store last: the apps' last log lines are written
            try {
                step.run();
            } catch (RuntimeException e) {
                LOG.warn("stopping the server: {}", e.toString());
                failed.add(e);
            }
        }
        if (!failed.isEmpty()) {
            RuntimeException first = failed.getFirst();
            failed.subList(1, failed.size()).forEach(first::addSuppressed);
            throw first;
        }
    }

    private void joinRecovery() {
        try {
            recovery.join(Duration.ofSeconds(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void closeApps(boolean leaveApps) {
        if (apps != null) apps.close();
        else if (leaveApps) edge.leave(); // it serves its last routes until the next start adopts it
        else edge.close();
    }
}
