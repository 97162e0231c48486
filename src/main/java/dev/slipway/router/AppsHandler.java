package dev.slipway.router;

import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/** Dispatches each request by its Host: to the app's process, to a static site, or to the "no app" page. */
final class AppsHandler extends Handler.Wrapper {
    private final RouteTable routes;
    private final StaticSiteHandler staticSites = new StaticSiteHandler();

    /** @param upstream what serves a request for an app's process: websocket upgrades, then the proxy */
    AppsHandler(RouteTable routes, Handler upstream) {
        super(upstream);
        this.routes = routes;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        String hostHeader = request.getHeaders().get(HttpHeader.HOST);
        Target target = routes.resolve(hostHeader).orElse(null);
        switch (target) {
            case null -> ErrorPages.noApp(response, callback,
                    hostHeader == null || hostHeader.isBlank() ? "(no Host header)" : RouteTable.hostOnly(hostHeader));
            case Target.Upstream u -> {
                request.setAttribute(UpstreamProxy.PORT_ATTRIBUTE, u.port());
                return super.handle(request, response, callback);
            }
            case Target.StaticSite s -> staticSites.handle(request, response, callback, s.root());
        }
        return true;
    }
}
