package dev.slipway.server;

import dev.slipway.api.AppUrls;
import dev.slipway.config.ListenerSettings;
import dev.slipway.config.ServerConfig;
import dev.slipway.net.BoundPort;

import java.util.ArrayList;
import java.util.List;

/**
 * The first phase: the server's ports, bound before anything is wired, so that links and app URLs are
 * plain values and the sandbox's network policy names the real ports.
 *
 * @param sandbox   the plant-store sandbox's own port, or null when it is served under the API's /sandbox
 * @param appsHttps the apps HTTPS listener's port, or null when HTTPS is off
 */
record Listeners(BoundPort api, BoundPort apps, BoundPort sandbox, BoundPort appsHttps) implements AutoCloseable {

    static Listeners bind(ServerConfig config) {
        BoundPort api = BoundPort.bind("API listener", config.listeners().host(), config.listeners().apiPort());
        BoundPort apps = null;
        BoundPort sandbox = null;
        try {
            apps = BoundPort.bind("apps listener", config.listeners().host(), config.listeners().appsPort());
            sandbox = config.listeners().sandboxPort() == null ? null
                    : BoundPort.bind("sandbox listener", config.listeners().host(), config.listeners().sandboxPort());
            BoundPort https = config.tls().httpsPort() == null ? null
                    : BoundPort.bind("apps HTTPS listener", config.listeners().host(), config.tls().httpsPort());
            return new Listeners(api, apps, sandbox, https);
        } catch (RuntimeException e) {
            api.close();
            if (apps != null) apps.close();
            if (sandbox != null) sandbox.close();
            throw e;
        }
    }

    AppUrls urls(ServerConfig config) {
        ListenerSettings listeners = config.listeners();
        return new AppUrls(listeners.appsDomain(), apps.port(), listeners.publicUrl(), listeners.host(), api.port());
    }

    /** Where the OpenAPI document says the sandbox is. */
    String sandboxBase(AppUrls urls) {
        return sandbox == null ? urls.api("/sandbox") : "http://" + sandbox.host() + ":" + sandbox.port() + "/sandbox";
    }

    /** The platform's own endpoints, which a sandboxed app must not reach wherever they are. */
    List<String> addresses() {
        List<String> out = new ArrayList<>(List.of(url(api), url(apps)));
        if (sandbox != null) out.add(url(sandbox));
        if (appsHttps != null) out.add("https://" + appsHttps.host() + ":" + appsHttps.port());
        return out;
    }

    private static String url(BoundPort port) {
        return "http://" + port.host() + ":" + port.port();
    }

    /** Closes the ports whose servers never started (a started server owns and closes its own). */
    @Override
    public void close() {
        api.close();
        apps.close();
        if (sandbox != null) sandbox.close();
        if (appsHttps != null) appsHttps.close();
    }
}
