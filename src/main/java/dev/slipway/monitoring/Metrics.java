package dev.slipway.monitoring;

import io.javalin.http.Context;
import dev.slipway.disk.DiskSpace;
import dev.slipway.store.StoreHealth;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import io.javalin.Javalin;
import io.javalin.http.HandlerType;
import io.javalin.router.InternalRouter;
import io.javalin.router.ParsedEndpoint;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * In Prometheus text: API requests by route template and status (latency histograms, so servers aggregate), waits kept
 * apart, the platform's own state (deployments and builds by outcome, the job queue, app instances, webhook deliveries,
 * certificates, the disk and the store), and JVM basics. Every metric says what it is in its HELP.
 */
public final class Metrics {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    public Metrics() {
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
    }

    public PrometheusMeterRegistry registry() { return registry; }

    /**
     * The data dir's disk (free bytes, the reserve kept) and the store (1 while it answers): what an operator alerts on
     * before new work is refused.
     */
    public void watch(DiskSpace disk, StoreHealth store) {
        Gauge.builder("slipway.disk.free.bytes", disk, d -> d.usage().map(DiskSpace.Usage::free).orElse(-1L))
                .description("free bytes on the data dir's disk").register(registry);
        Gauge.builder("slipway.disk.reserve.bytes", disk, d -> d.usage().map(DiskSpace.Usage::reserve).orElse(-1L))
                .description("bytes kept free for the store: below, new work is refused").register(registry);
        Gauge.builder("slipway.store.up", store, s -> s.away().isPresent() ? 0 : 1)
                .description("1 while the store answers, 0 while it is away").register(registry);
    }

    /** Where a request's latency falls: the buckets of its histogram, few enough that every route may have them. */
    private static final Duration[] BUCKETS = {Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25),
            Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1),
            Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10)};

    /** A request attribute: true on a request that waited for a change (a long-poll) rather than answering at once. */
    public static final String WAITED = "slipway.waited";

    /** The listeners' routers: a request refused before its route ran (no key, a limit) is labelled with its route too. */
    private final List<InternalRouter> routers = new CopyOnWriteArrayList<>();

    public void routes(Javalin app) {
        routers.add(app.unsafe.internalRouter);
    }

    /**
     * Records one finished request under its route's template (ids do not explode the series). A long-poll ({@link
     * #WAITED}) or an event stream is a wait, not work: it goes to {@code http_server_waits} and leaves the latency
     * histogram to the requests that answer at once.
     */
    public void record(Context ctx, float millis) {
        String route = route(ctx);
        long nanos = (long) (millis * 1_000_000L);
        String type = ctx.res().getContentType();
        if (Boolean.TRUE.equals(ctx.attribute(WAITED)) || type != null && type.startsWith("text/event-stream")) {
            Timer.builder("http.server.waits")
                    .description("API long-polls (?wait=) and event streams (logs followed live): how long they were held open")
                    .tag("method", ctx.method().name())
                    .tag("route", route)
                    .register(registry)
                    .record(nanos, TimeUnit.NANOSECONDS);
            return;
        }
        requests.computeIfAbsent(new RequestKey(ctx.method().name(), route, ctx.statusCode()), k -> Timer.builder("http.server.requests")
                .description("API and dashboard requests by method, route template and status: their latency in a histogram")
                .tag("method", k.method())
                .tag("route", k.route())
                .tag("status", Integer.toString(k.status()))
                .serviceLevelObjectives(BUCKETS)
                .register(registry)).record(nanos, TimeUnit.NANOSECONDS);
    }

    /** A request's timer, found without building its id each time (routes and statuses are few). */
    private record RequestKey(String method, String route, int status) {}

    private final java.util.concurrent.ConcurrentHashMap<RequestKey, Timer> requests = new java.util.concurrent.ConcurrentHashMap<>();

    private String route(Context ctx) {
        try {
            String path = ctx.endpoint().path;
            if (path != null && !path.isEmpty() && !path.equals("*")) return path;
        } catch (RuntimeException unmatched) {
            // refused before its route ran: found below
        }
        HandlerType type = ctx.method();
        if (!type.isHttpMethod()) return "unmatched";
        for (InternalRouter r : routers) {
            ParsedEndpoint found = r.findFirstHttpHandlerEntry(type, ctx.path());
            if (found != null) return found.endpoint.path;
        }
        return "unmatched";
    }

    /** How long a deployment took, from its request to live or failed: buckets for builds of seconds to half an hour. */
    private static final Duration[] DEPLOY_BUCKETS = {Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30),
            Duration.ofMinutes(1), Duration.ofMinutes(2), Duration.ofMinutes(5), Duration.ofMinutes(10), Duration.ofMinutes(30)};

    /** A deployment ended {@code outcome} (live or failed) after {@code took}; its build took {@code build}, if it built. */
    public void deploymentFinished(String outcome, Duration took, Duration build) {
        Timer.builder("slipway.deployments")
                .description("deployments that ended, by outcome (live, failed): from their request to that end")
                .tag("outcome", outcome)
                .serviceLevelObjectives(DEPLOY_BUCKETS)
                .register(registry)
                .record(took);
        if (build == null) return;
        Timer.builder("slipway.builds")
                .description("builds of deployments that ended, by the deployment's outcome: how long the build took")
                .tag("outcome", outcome)
                .serviceLevelObjectives(DEPLOY_BUCKETS)
                .register(registry)
                .record(build);
    }

    /** The job queue as last counted: jobs waiting for a worker, and how long the oldest has waited. */
    private final AtomicLong jobsQueued = new AtomicLong(-1);
    private final AtomicLong oldestQueuedSeconds = new AtomicLong(-1);

    private final AtomicReference<Optional<Instant>> soonestExpiry = new AtomicReference<>(Optional.empty());

    /** What the store said when last asked (every 15 s): the job queue, and the soonest expiry of an issued certificate. */
    public void counted(int queued, Duration oldestWait, Optional<Instant> soonestCertificateExpiry) {
        jobsQueued.set(queued);
        oldestQueuedSeconds.set(oldestWait.toSeconds());
        soonestExpiry.set(soonestCertificateExpiry);
    }

    /**
     * The platform's own state, read at each scrape from memory (or from what was last counted: nothing here waits for
     * the store): the job queue, the app instances this server runs, webhook deliveries by outcome, and the soonest
     * expiry of the certificates it serves.
     */
    /** What the gauges and counters below read: held here, as Micrometer holds what it reads only weakly. */
    private final List<Object> watched = new CopyOnWriteArrayList<>();

    public void watch(IntSupplier instances, LongSupplier delivered, LongSupplier failedDeliveries, Clock clock) {
        watched.addAll(List.of(instances, delivered, failedDeliveries));
        Gauge.builder("slipway.jobs.queued", jobsQueued, AtomicLong::get)
                .description("jobs (deployments, project deletions) waiting for a worker, counted every 15 s; -1 before the first count")
                .register(registry);
        Gauge.builder("slipway.jobs.oldest.queued.seconds", oldestQueuedSeconds, AtomicLong::get)
                .description("how long the oldest waiting job has waited, counted every 15 s (0 when none waits)")
                .register(registry);
        Gauge.builder("slipway.app.instances", instances, IntSupplier::getAsInt)
                .description("app instances (web replicas, with their workers) this server runs").register(registry);
        FunctionCounter.builder("slipway.webhook.deliveries", delivered, LongSupplier::getAsLong)
                .description("webhook delivery attempts by outcome, this server's since its start").tag("outcome", "delivered").register(registry);
        FunctionCounter.builder("slipway.webhook.deliveries", failedDeliveries, LongSupplier::getAsLong)
                .description("webhook delivery attempts by outcome, this server's since its start").tag("outcome", "failed").register(registry);
        Gauge.builder("slipway.certificates.soonest.expiry.seconds", soonestExpiry,
                        s -> s.get().map(t -> (double) Duration.between(clock.instant(), t).toSeconds()).orElse(Double.NaN))
                .description("seconds until the first of the issued certificates expires (NaN when there is none)").register(registry);
    }

    /** The apps' processes by state, as the last app sample counted them ({@code byState}). */
    public void watchProcesses(java.util.function.ToIntFunction<String> byState) {
        watched.add(byState);
        for (String state : List.of("running", "restarting", "crashed", "stopped")) {
            java.util.function.Supplier<Number> count = () -> byState.applyAsInt(state);
            watched.add(count);
            Gauge.builder("slipway.app.processes", count)
                    .description("app processes (web instances and workers, or pods) by state at the last sample, every 10 s")
                    .tag("state", state).register(registry);
        }
    }

    public void scrape(Context ctx) {
        ctx.contentType("text/plain; version=0.0.4; charset=utf-8").result(registry.scrape());
    }
}
