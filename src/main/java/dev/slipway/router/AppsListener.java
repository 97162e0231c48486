package dev.slipway.router;

import dev.slipway.net.BoundPort;
import dev.slipway.net.ClientGate;
import dev.slipway.net.ClientLimits;
import dev.slipway.net.TrustedProxies;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.ProxyConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.server.handler.MinimumDataRateHandler;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.websocket.client.WebSocketClient;
import org.eclipse.jetty.websocket.server.WebSocketUpgradeHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeoutException;

import java.util.function.IntPredicate;

/**
 * The data plane: a Jetty server of its own (never the API's port) that serves deployed apps by Host, behind
 * the {@link Relay} that owns the public HTTP port and relays plain requests to running apps itself.
 */
public final class AppsListener implements AutoCloseable {
    /** Client connections: long enough for quiet event streams, the same as the upstream side. */
    private static final long CLIENT_IDLE_MS = UpstreamProxy.REQUEST_IDLE_MS;
    /** Frames are relayed one by one, never whole messages, so only a single frame is bounded. */
    private static final long MAX_WEBSOCKET_FRAME = 16L * 1024 * 1024;
    private static final String INTERNAL_HOST = "127.0.0.1";
    private static final long STOP_TIMEOUT_MS = 5_000;
    private static final Logger LOG = LoggerFactory.getLogger(AppsListener.class);

    private final Server server;
    private final int port;
    private final Relay relay;
    private final RecentRequests recent;

    private AppsListener(Server server, int port, Relay relay, RecentRequests recent) {
        this.server = server;
        this.port = port;
        this.relay = relay;
        this.recent = recent;
    }

    /**
     * Binds {@code host:port} (0 picks a free port) and starts serving.
     *
     * @param restarting whether the app on a loopback port is being restarted (503 rather than 502)
     */
    public static AppsListener start(String host, int port, RouteTable routes, IntPredicate restarting) {
        return start(host, port, routes, restarting, Wakeups.NONE);
    }

    /** As above; addresses without a running app behind them are woken with {@code wakeups}. */
    public static AppsListener start(String host, int port, RouteTable routes, IntPredicate restarting, Wakeups wakeups) {
        return start(BoundPort.bind("apps listener", host, port), routes, restarting, wakeups, new RecentRequests(wakeups.clock()));
    }

    /**
     * Starts serving on a port bound earlier. {@code recent} records the requests each app was sent, which a
     * server reads before this listener exists (what keeps a busy retired app running).
     */
    public static AppsListener start(BoundPort port, RouteTable routes, IntPredicate restarting, Wakeups wakeups,
                                     RecentRequests recent) {
        return start(port, routes, restarting, wakeups, recent, Edge.NONE);
    }

    /** As above, with {@code edge} in front of the router (HTTPS, ACME challenges, redirects), through the relay. */
    public static AppsListener start(BoundPort port, RouteTable routes, IntPredicate restarting, Wakeups wakeups,
                                     RecentRequests recent, Edge edge) {
        return start(port, routes, restarting, wakeups, recent, edge, true);
    }

    /** As above, its clients held to {@code gate} (the server's limits and trusted proxies). */
    public static AppsListener start(BoundPort port, RouteTable routes, IntPredicate restarting, Wakeups wakeups,
                                     RecentRequests recent, Edge edge, ClientGate gate) {
        return start(port, routes, restarting, wakeups, recent, edge, true, gate);
    }

    /** With the default limits and no trusted proxy. */
    public static AppsListener start(BoundPort port, RouteTable routes, IntPredicate restarting, Wakeups wakeups,
                                     RecentRequests recent, Edge edge, boolean relay) {
        return start(port, routes, restarting, wakeups, recent, edge, relay, ClientGate.forApps(ClientLimits.DEFAULTS, TrustedProxies.NONE));
    }

    /**
     * As above. With {@code relay}, the public port is the {@link Relay}'s and Jetty listens on a loopback port
     * behind it (PROXY protocol); without it, Jetty serves the public port itself, as before the relay. Every
     * public connection, HTTP and HTTPS, is counted by {@code gate} and held to its limits.
     */
    public static AppsListener start(BoundPort port, RouteTable routes, IntPredicate restarting, Wakeups wakeups,
                                     RecentRequests recent, Edge edge, boolean relay, ClientGate gate) {
        QueuedThreadPool threads = new QueuedThreadPool(256, 8);
        threads.setName("apps");
        Server server = new Server(threads);
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        http.setSendXPoweredBy(false);
        http.setSendDateHeader(false); // apps send their own; two Date headers would be wrong
        ServerConnector connector;
        if (relay) {
            // only the relay connects here; the PROXY line tells Jetty the client's address and the public port
            HttpConnectionFactory h1 = new HttpConnectionFactory(http);
            connector = new ServerConnector(server, new ProxyConnectionFactory(h1.getProtocol()), h1);
            connector.setHost(INTERNAL_HOST);
            connector.setPort(0);
        } else {
            connector = port.connector(server, new HttpConnectionFactory(http));
        }
        connector.setIdleTimeout(CLIENT_IDLE_MS);
        // the relay counts its connections itself: behind it, every one comes from loopback
        gate.guard(connector, !relay, true);
        server.addConnector(connector);
        String viaHost = ForwardedHeaders.defaultViaHost();
        ForwardedHeaders forwarded = new ForwardedHeaders(gate.trusted(), viaHost);
        UpstreamProxy proxy = new UpstreamProxy(restarting, forwarded);
        proxy.setViaHost(viaHost);
        proxy.setUseServerThreadPool(true);
        WebSocketClient sockets = new WebSocketClient();
        sockets.setConnectTimeout(WebSocketTunnel.CONNECT_TIMEOUT_MS);
        sockets.setIdleTimeout(Duration.ofMillis(CLIENT_IDLE_MS));
        sockets.setMaxFrameSize(MAX_WEBSOCKET_FRAME);
        server.addBean(sockets);
        WebSocketUpgradeHandler upgrades = WebSocketUpgradeHandler.from(server, container -> {
            container.setIdleTimeout(Duration.ofMillis(CLIENT_IDLE_MS));
            container.setMaxFrameSize(MAX_WEBSOCKET_FRAME);
            container.addMapping("/*", new WebSocketTunnel(sockets, restarting, recent, forwarded));
        });
        upgrades.setHandler(proxy);
        Balancer balancer = new Balancer(wakeups.serving(), restarting);
        Handler handler = edge.wrap(new AppsHandler(routes, restarting, wakeups, recent, upgrades, balancer));
        long minRate = gate.limits().bodyMinRate();
        server.setHandler(minRate > 0 ? new MinimumDataRateHandler(handler, minRate, 0) : handler);
        int own = server.getConnectors().length;
        edge.connect(server, http);
        for (Connector c : Arrays.copyOfRange(server.getConnectors(), own, server.getConnectors().length)) {
            if (c instanceof ServerConnector s) gate.guard(s, true, s.getConnectionFactory(SslConnectionFactory.class) == null);
        }
        // a fixed handler tree: the server takes its handler's invocation type (non-blocking, see AppsHandler;
        // an edge's handler must keep it so) instead of assuming any handler may block and running every
        // request on another thread
        server.setDynamic(false);
        server.setStopTimeout(STOP_TIMEOUT_MS);
        try {
            server.start();
        } catch (Exception e) {
            try {
                server.stop();
            } catch (Exception ignored) {
                // already failing
            }
            throw new IllegalStateException("apps listener cannot listen on " + port.host() + ":" + port.port() + ": " + e.getMessage(), e);
        }
        if (!relay) return new AppsListener(server, port.port(), null, recent);
        try {
            Relay r = new Relay(port.channel(), new InetSocketAddress(INTERNAL_HOST, connector.getLocalPort()), routes,
                    restarting, wakeups, recent, edge, viaHost, gate, balancer);
            return new AppsListener(server, port.port(), r, recent);
        } catch (IOException | RuntimeException e) {
            port.close();
            try {
                server.stop();
            } catch (Exception ignored) {
                // already failing
            }
            throw new IllegalStateException("apps listener cannot listen on " + port.host() + ":" + port.port() + ": " + e.getMessage(), e);
        }
    }

    public int port() {
        return port;
    }

    /**
     * Epoch millis (of the wake-ups' clock) of the last request routed, or WebSocket frame relayed, to
     * the app on loopback {@code port}; 0 when there was none. What keeps a busy retired app running.
     */
    public long lastRequestMillis(int port) {
        return recent.lastMillis(port);
    }

    @Override
    public void close() {
        if (relay != null) relay.close();
        try {
            server.stop();
        } catch (TimeoutException e) {
            // Jetty stops every connector and bean after its graceful phase times out: what was still open (a stalled
            // tenant's upgrade waiting for its handshake) is cut, which is what a stop should do
            LOG.warn("apps listener: connections still open after the {} ms stop timeout were closed", STOP_TIMEOUT_MS);
        } catch (Exception e) {
            throw new IllegalStateException("apps listener did not stop cleanly: " + e.getMessage(), e);
        }
    }
}
