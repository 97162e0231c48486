package dev.slipway.monitoring;

import io.javalin.http.Context;
import dev.slipway.disk.DiskSpace;
import dev.slipway.store.StoreHealth;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.util.concurrent.TimeUnit;

/** Request counts and latencies by route and status, plus JVM basics, in Prometheus text. */
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

    /** Records one finished request; the route is the matched template so ids do not explode the series. */
    public void record(Context ctx, float millis) {
        String route;
        try {
            route = ctx.endpoint().path;
        } catch (RuntimeException unmatched) {
            route = "unmatched";
        }
        if (route == null || route.isEmpty() || route.equals("*")) route = "unmatched";
        Timer.builder("http.server.requests")
                .tag("method", ctx.method().name())
                .tag("route", route)
                .tag("status", Integer.toString(ctx.statusCode()))
                .publishPercentileHistogram(false)
                .register(registry)
                .record((long) (millis * 1_000_000L), TimeUnit.NANOSECONDS);
    }

    public void scrape(Context ctx) {
        ctx.contentType("text/plain; version=0.0.4; charset=utf-8").result(registry.scrape());
    }
}
