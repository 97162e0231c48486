package dev.slipway.router;

import java.io.IOException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.client.ClientUpgradeRequest;
import org.eclipse.jetty.websocket.client.WebSocketClient;
import org.eclipse.jetty.websocket.server.ServerUpgradeRequest;
import org.eclipse.jetty.websocket.server.ServerUpgradeResponse;
import org.eclipse.jetty.websocket.server.WebSocketCreator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.URI;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntPredicate;

/**
 * WebSockets through the router: the client's upgrade is accepted only once the app has accepted
 * the same upgrade (same path, query, cookies, origin and sub-protocols), then frames are relayed
 * as they come, fragment by fragment, in both directions. Each side reads its next frame only when
 * the previous one has been written to the other side, so a slow reader slows its writer instead
 * of filling the router's memory.
 */
final class WebSocketTunnel implements WebSocketCreator {
    private static final Logger LOG = LoggerFactory.getLogger(WebSocketTunnel.class);
    static final long CONNECT_TIMEOUT_MS = 5_000;
    /** Headers of the handshake itself, or of this hop, or set by {@link ForwardedHeaders}: never copied from the client's. */
    private static final Set<String> NOT_FORWARDED = Set.of("host", "connection", "upgrade", "content-length",
            "sec-websocket-key", "sec-websocket-version", "sec-websocket-extensions", "sec-websocket-accept",
            "sec-websocket-protocol", "keep-alive", "te", "trailer", "transfer-encoding", "proxy-connection",
            "x-forwarded-for", "x-forwarded-proto", "x-forwarded-host", "x-forwarded-port", "x-real-ip", "via", "forwarded");

    private final WebSocketClient client;
    private final IntPredicate restarting;
    private final RecentRequests recent;
    private final ForwardedHeaders forwarded;

    WebSocketTunnel(WebSocketClient client, IntPredicate restarting, RecentRequests recent, ForwardedHeaders forwarded) {
        this.client = client;
        this.restarting = restarting;
        this.recent = recent;
        this.forwarded = forwarded;
    }

    @Override
    public Object createWebSocket(ServerUpgradeRequest request, ServerUpgradeResponse response, Callback callback) {
        Target.Upstream target = (Target.Upstream) request.getAttribute(UpstreamProxy.TARGET_ATTRIBUTE);
        int port = target.port();
        String host = RouteTable.hostOnly(request.getHeaders().get(HttpHeader.HOST));
        var uri = request.getHttpURI();
        URI upstream = URI.create("ws://" + target.host() + ":" + port + uri.getPath() + (uri.getQuery() == null ? "" : "?" + uri.getQuery()));
        ClientUpgradeRequest upgrade = new ClientUpgradeRequest();
        for (String name : request.getHeaders().getFieldNamesCollection()) {
            if (!NOT_FORWARDED.contains(name.toLowerCase(Locale.ROOT))) upgrade.setHeader(name, request.getHeaders().getValuesList(name));
        }
        forwarded.of(request).forEach(upgrade::setHeader);
        if (!request.getSubProtocols().isEmpty()) upgrade.setSubProtocols(request.getSubProtocols());

        Runnable active = () -> recent.record(port); // each frame, either way: an open tunnel in use keeps its app
        WebSocketRelay toApp = new WebSocketRelay(WebSocketRelay.Side.APP, active);
        WebSocketRelay toClient = new WebSocketRelay(WebSocketRelay.Side.CLIENT, active);
        WebSocketRelay.pair(toApp, toClient);
        try {
            Session app = client.connect(toApp, upstream, upgrade).get(CONNECT_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            String protocol = app.getUpgradeResponse().getAcceptedSubProtocol();
            if (protocol != null) response.setAcceptedSubProtocol(protocol);
            return toClient;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ErrorPages.appDown(response, callback, host);
        } catch (TimeoutException e) {
            ErrorPages.timeout(response, callback, host);
        } catch (ExecutionException | IOException e) {
            LOG.debug("websocket upgrade to {} for {} failed: {}", upstream, host, e.toString());
            if (restarting.test(port)) ErrorPages.appStarting(response, callback, host);
            else ErrorPages.appDown(response, callback, host);
        }
        return null;
    }
}
