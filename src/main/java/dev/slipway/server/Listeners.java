package dev.slipway.server;

import dev.slipway.api.AppUrls;
import dev.slipway.config.ListenerSettings;
import dev.slipway.config.ServerConfig;
import dev.slipway.edge.EdgeLink;
import dev.slipway.net.BoundPort;

import java.io.IOException;

import java.util.ArrayList;
import java.util.List;

/**
 * The first phase: the server's ports, bound before anything is wired, so that links and app URLs are
 * plain values and the sandbox's network policy names the real ports.
 *
 * @param apps      the apps port, bound here; null when an edge process serves it
 * @param edge      the edge process that serves the apps port; null when this server does
 * @param sandbox   the plant-store sandbox's own port, or null when it is served under the API's /sandbox
 * @param appsHttps the apps HTTPS listener's port, or null when HTTPS is off or the edge process serves it
 */
record Listeners(BoundPort api, BoundPort apps, EdgeLink edge, BoundPort sandbox, BoundPort appsHttps) implements AutoCloseable {

    static Listeners bind(ServerConfig config) {
        BoundPort api = BoundPort.bind("API listener", config.listeners().host(), config.listeners().apiPort());
        BoundPort apps = null;
        EdgeLink edge = null;
        BoundPort sandbox = null;
        try {
            if (config.edge().separate()) {
                try {
                    edge = EdgeLink.open(new EdgeLink.Spec(config.dataDir(), config.listeners().host(), config.listeners().appsPort(),
                            config.listeners().appsDomain(), config.tls().httpsPort(), config.edge().trainCache()));
                } catch (IOException e) {
                    throw new IllegalStateException("the edge process did not start: " + e.getMessage(), e);
                }
            } else {
                apps = BoundPort.bind("apps listener", config.listeners().host(), config.listeners().appsPort());
            }
            sandbox = config.listeners().sandboxPort() == null ? null
                    : BoundPort.bind("sandbox listener", config.listeners().host(), config.listeners().sandboxPort());
            BoundPort https = config.tls().httpsPort() == null || edge != null ? null
                    : BoundPort.bind("apps HTTPS listener", config.listeners().host(), config.tls().httpsPort());
            return new Listeners(api, apps, edge, sandbox, https);
        } catch (RuntimeException e) {
            api.close();
            if (apps != null) apps.close();
            if (edge != null) release(edge);
            if (sandbox != null) sandbox.close();
            throw e;
        }
    }

    AppUrls urls(ServerConfig config) {
        ListenerSettings listeners = config.listeners();
        return new AppUrls(listeners.appsDomain(), appsPort(), listeners.publicUrl(), listeners.host(), api.port());
    }

    int appsPort() {
        return edge != null ? edge.port() : apps.port();
    }

    /** The apps HTTPS port, wherever it is served; null when HTTPS is off. */
    Integer appsHttpsPort() {
        return edge != null ? edge.httpsPort() : appsHttps == null ? null : appsHttps.port();
    }

    /** Where the OpenAPI document says the sandbox is. */
    String sandboxBase(AppUrls urls) {
        return sandbox == null ? urls.api("/sandbox") : "http://" + sandbox.host() + ":" + sandbox.port() + "/sandbox";
    }

    /** The platform's own endpoints, which a sandboxed app must not reach wherever they are. */
    List<String> addresses() {
        List<String> out = new ArrayList<>(List.of(url(api), "http://" + api.host() + ":" + appsPort()));
        if (sandbox != null) out.add(url(sandbox));
        Integer https = appsHttpsPort();
        if (https != null) out.add("https://" + api.host() + ":" + https);
        return out;
    }

    private static String url(BoundPort port) {
        return "http://" + port.host() + ":" + port.port();
    }

    /** Closes the ports whose servers never started (a started server owns and closes its own). */
    @Override
    public void close() {
        api.close();
        if (apps != null) apps.close();
        if (edge != null) release(edge);
        if (sandbox != null) sandbox.close();
        if (appsHttps != null) appsHttps.close();
    }

    /**
     * An adopted edge serves the routes an earlier server sent it, and goes on serving them; one this failed start
     * started was sent none, and is stopped.
     */
    private static void release(EdgeLink edge) {
        if (edge.adopted()) edge.leave();
        else edge.close();
    }
}
