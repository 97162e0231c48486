package dev.slipway.router;

import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.proxy.ProxyHandler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Invocable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntPredicate;

/**
 * Reverse proxy to an app (on a loopback port, or another runtime's address) (Jetty's core {@code ProxyHandler}): streams both ways
 * without buffering, sets the forwarded fields ({@link ForwardedHeaders}), and answers its own 502/503/504 pages when the
 * app cannot be reached. The upstream port is chosen per request by {@link AppsHandler}.
 */
final class UpstreamProxy extends ProxyHandler.Reverse {
    private static final Logger LOG = LoggerFactory.getLogger(UpstreamProxy.class);
    static final String TARGET_ATTRIBUTE = UpstreamProxy.class.getName() + ".target";
    /**
     * Pooled idle connections to apps close sooner than the usual app keep-alive (Node and uvicorn: 5 s),
     * so the proxy never sends a request on a connection the app is closing.
     */
    static final long POOLED_IDLE_MS = 4_000;
    /** A request may wait this long between two bytes: long-polling and quiet event streams. */
    static final long REQUEST_IDLE_MS = 300_000;

    private final IntPredicate restarting;
    private final ForwardedHeaders forwarded;

    UpstreamProxy(IntPredicate restarting, ForwardedHeaders forwarded) {
        super(UpstreamProxy::upstreamUri);
        this.restarting = restarting;
        this.forwarded = forwarded;
    }

    private static HttpURI upstreamUri(Request request) {
        Target.Upstream upstream = (Target.Upstream) request.getAttribute(TARGET_ATTRIBUTE);
        HttpURI in = request.getHttpURI();
        return HttpURI.build().scheme("http").host(upstream.host()).port(upstream.port())
                .path(in.getPath()).query(in.getQuery());
    }

    /** Apps speak HTTP/1.1 on loopback: no protocol negotiation per connection. */
    @Override
    protected HttpClient newHttpClient() {
        return new HttpClient(new HttpClientTransportOverHTTP(new ClientConnector()));
    }

    @Override
    protected void configureHttpClient(HttpClient client) {
        super.configureHttpClient(client);
        // the proxy's response listeners only write to the client asynchronously: an app's response is relayed
        // by the thread that read it, with no hand-off to another (see AppsHandler)
        client.getHttpClientTransport().setInvocationType(Invocable.InvocationType.NON_BLOCKING);
        client.setIdleTimeout(POOLED_IDLE_MS);
        client.setConnectTimeout(5_000);
        client.setMaxConnectionsPerDestination(512);
        client.setMaxRequestsQueuedPerDestination(4096);
    }

    @Override
    protected org.eclipse.jetty.client.Request newProxyToServerRequest(Request clientToProxy, HttpURI uri) {
        return super.newProxyToServerRequest(clientToProxy, uri).idleTimeout(REQUEST_IDLE_MS, TimeUnit.MILLISECONDS);
    }

    @Override
    protected void addProxyHeaders(Request clientToProxy, org.eclipse.jetty.client.Request proxyToServer) {
        // not Jetty's own (Via and Forwarded appended to the client's): the listener's view, as the relay writes it
        Map<String, String> fields = forwarded.of(clientToProxy);
        proxyToServer.headers(h -> {
            ForwardedHeaders.NAMES.forEach(h::remove);
            fields.forEach(h::put);
        });
        Target.Upstream upstream = (Target.Upstream) clientToProxy.getAttribute(TARGET_ATTRIBUTE);
        if (upstream != null && !upstream.loopback() && !clientToProxy.getHeaders().contains(HttpHeader.UPGRADE)) {
            // a cluster Service: kube-proxy picks a pod per connection, so a pooled connection would stay on the
            // pods of before a production switch for as long as it is busy; one connection per request follows it
            proxyToServer.headers(h -> h.put(HttpHeader.CONNECTION, "close"));
        }
    }

    /**
     * Whether the exchange failed because the client's body came too slowly (the listener's
     * {@code MinimumDataRateHandler} failed the proxy's read of it): then the client is at fault, not the app. That
     * read failure stays the request's answer to every later read.
     */
    private static boolean clientTooSlow(Request clientToProxy, Throwable failure) {
        if (!(failure instanceof TimeoutException)) return false;
        Content.Chunk chunk = clientToProxy.read();
        if (chunk == null) return false;
        boolean same = Content.Chunk.isFailure(chunk) && chunk.getFailure() == failure;
        chunk.release();
        return same;
    }

    @Override
    protected void onServerToProxyResponseFailure(Request clientToProxy, org.eclipse.jetty.client.Request proxyToServer,
                                                  org.eclipse.jetty.client.Response serverToProxy, Response proxyToClient,
                                                  Callback callback, Throwable failure) {
        if (proxyToClient.isCommitted()) {
            // the app failed mid-response: nothing to say to the client but to cut the connection
            callback.failed(failure);
            return;
        }
        proxyToClient.reset();
        String host = RouteTable.hostOnly(clientToProxy.getHeaders().get(HttpHeader.HOST));
        Target.Upstream upstream = (Target.Upstream) clientToProxy.getAttribute(TARGET_ATTRIBUTE);
        int port = upstream.port();
        LOG.debug("upstream {}:{} for {} failed: {}", upstream.host(), port, host, failure.toString());
        if (clientTooSlow(clientToProxy, failure)) ErrorPages.clientTooSlow(proxyToClient, callback);
        else if (failure instanceof TimeoutException) ErrorPages.timeout(proxyToClient, callback, host);
        else if (restarting.test(port)) ErrorPages.appStarting(proxyToClient, callback, host);
        else ErrorPages.appDown(proxyToClient, callback, host);
    }
}
