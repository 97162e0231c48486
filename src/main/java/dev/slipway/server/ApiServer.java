package dev.slipway.server;

import dev.slipway.api.Gate;
import dev.slipway.api.Requests;
import dev.slipway.core.Ids;
import dev.slipway.core.Json;
import dev.slipway.monitoring.Metrics;
import dev.slipway.net.BoundPort;
import dev.slipway.net.ClientGate;
import dev.slipway.disk.DiskSpace;
import dev.slipway.dashboard.ErrorPage;
import dev.slipway.store.StoreHealth;
import io.javalin.Javalin;
import io.javalin.compression.CompressionStrategy;
import io.javalin.compression.Gzip;
import io.javalin.config.JavalinConfig;
import java.util.function.Consumer;
import org.eclipse.jetty.server.HttpConnectionFactory;
import io.javalin.json.JavalinJackson;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.server.handler.MinimumDataRateHandler;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/** The control-plane listener: Javalin on Jetty with virtual threads, the gate, error mapping and metrics. */
public final class ApiServer {
    private static final Pattern CLIENT_REQUEST_ID = Pattern.compile("^[A-Za-z0-9_.:-]{1,64}$");

    private ApiServer() {}

    /** The sandbox alone on its own port (SLIPWAY_SANDBOX_PORT). */
    public static Javalin createSandbox(BoundPort port, ClientGate clients, Metrics metrics, Routes.Handlers handlers, Clock clock,
                                       StoreHealth store) {
        return base(port, clients, metrics, clock, config -> {
            ErrorMapper.register(config.routes, store, handlers.disk(), clock);
            Routes.registerSandbox(config.routes, handlers);
        });
    }

    /** @param clients what one client may take of the listener (ClientGate), not to mix up with the API's {@link Gate} */
    public static Javalin create(BoundPort port, ClientGate clients, Gate gate, Metrics metrics, Routes.Handlers handlers, Clock clock,
                                 boolean withSandbox, StoreHealth store) {
        DiskSpace disk = handlers.disk();
        return base(port, clients, metrics, clock, config -> {
            // while the store is away, the API and the dashboard answer at once rather than after a wait for a
            // connection; a write on a full disk (what most often takes the embedded store away) is told so, naming the
            // disk. The dashboard's own assets need no store: its page keeps its look.
            config.routes.before(ctx -> {
                if (needsStore(ctx.path()) && store.away().isPresent()) throw ErrorMapper.whileStoreAway(ctx, disk);
            });
            config.routes.before(gate::check);
            ErrorMapper.register(config.routes, store, disk, clock);
            Routes.register(config.routes, handlers);
            if (withSandbox) Routes.registerSandbox(config.routes, handlers);
        });
    }

    /**
     * Gzip, as Javalin's default. Before each answer's first write Javalin looks for its content type in a list of types
     * it compresses at once, then in one of types it never compresses (case-insensitive substring searches, 3-4 %
     * of a warm API read); JSON, the API's own type, is put in the first list, which decides the same at once.
     */
    private static CompressionStrategy compression() {
        CompressionStrategy gzip = new CompressionStrategy(null, new Gzip());
        List<String> allowed = new ArrayList<>(gzip.getAllowedMimeTypes());
        allowed.add("application/json");
        gzip.setAllowedMimeTypes(allowed);
        return gzip;
    }

    private static boolean needsStore(String path) {
        return path.startsWith("/v1/") || ErrorPage.covers(path) && !path.startsWith("/dashboard/assets/");
    }

    private static Javalin base(BoundPort port, ClientGate clients, Metrics metrics, Clock clock,
                                Consumer<JavalinConfig> routes) {
        Ids ids = Ids.names(clock); // request ids name a request; they guard nothing
        Javalin app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.startup.showOldJavalinVersionWarning = false;
            config.concurrency.useVirtualThreads = true;
            config.jetty.addConnector((server, http) -> {
                ServerConnector connector = port.connector(server, new HttpConnectionFactory(http));
                clients.guard(connector, true, true); // a head deadline, the connection caps
                return connector;
            });
            // bodies are read and bounded by Requests, per route (JSON 1 MiB, uploads larger)
            config.http.maxRequestSize = Long.MAX_VALUE;
            config.http.prefer405over404 = true;
            config.jsonMapper(new JavalinJackson(Json.MAPPER, true));
            config.http.compressionStrategy = compression();
            // Javalin copies each answer to the response through a buffer of this size, made anew per request (by
            // default Jetty's whole output buffer, 32 KiB, zeroed each time); Jetty's own buffer still gathers an answer
            // of up to 32 KiB into one write
            config.http.responseBufferSize = 8192;
            config.jetty.modifyServer(server -> {
                server.setStopTimeout(20_000);
                // Javalin puts its own handler inside the innermost wrapper: a request body must keep coming
                long minRate = clients.limits().bodyMinRate();
                server.setHandler(minRate > 0 ? new GracefulHandler(new MinimumDataRateHandler(minRate, 0)) : new GracefulHandler());
            });
            config.requestLogger.http(metrics::record);
            config.routes.before(ctx -> {
                String incoming = ctx.header("X-Request-Id");
                String id = incoming != null && CLIENT_REQUEST_ID.matcher(incoming).matches() ? incoming : ids.next("req");
                ctx.attribute(Requests.REQUEST_ID, id);
                ctx.header("X-Request-Id", id);
                ctx.attribute(Requests.CLIENT, clients.trusted().behind(ctx.ip(), ctx.header("X-Forwarded-For")));
            });
            routes.accept(config);
        });
        metrics.routes(app);
        return app;
    }
}
