package dev.slipway.router;

import java.util.function.IntPredicate;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Invocable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Dispatches each request by its Host: to the app's process, to a static site, or to the "no app" page.
 * An address without a route, or whose route points at a port nothing listens on any more, is handed
 * to the {@link Waker}; the request waits for it without holding a server thread. A host the waker
 * found nothing at gets the 404 page at once for a few seconds ({@link UnknownHosts}).
 * <p>
 * Declared non-blocking, so that Jetty runs a request on the selector thread that read it rather than
 * handing it to another thread (the hand-offs cost more than the proxying). Only the path of a
 * plain request to a running app stays on that thread, and it never blocks: a route lookup, the proxy's
 * asynchronous exchange, an error page. What may block (a wake-up reading the store, a WebSocket upgrade
 * waiting for the app's handshake, a static file read) runs on the server's thread pool, so one tenant's
 * slow app cannot stall the connections of others.
 */
final class AppsHandler extends Handler.Wrapper {
    private static final Logger LOG = LoggerFactory.getLogger(AppsHandler.class);

    private final RouteTable routes;
    private final IntPredicate restarting;
    private final Wakeups wakeups;
    private final RecentRequests recent;
    private final UnknownHosts unknown;
    private final StaticSiteHandler staticSites = new StaticSiteHandler();
    private final Balancer balancer;

    /**
     * @param restarting whether the app on a loopback port is between a crash and its restart's health check:
     *                   nothing of the platform's listens there then, so nothing is forwarded to it
     * @param upstream   what serves a request for an app's process: websocket upgrades, then the proxy
     */
    AppsHandler(RouteTable routes, IntPredicate restarting, Wakeups wakeups, RecentRequests recent,
                Handler upstream, Balancer balancer) {
        super(upstream);
        this.balancer = balancer;
        this.routes = routes;
        this.restarting = restarting;
        this.wakeups = wakeups;
        this.recent = recent;
        this.unknown = new UnknownHosts(wakeups.clock(), routes);
    }

    @Override
    public Invocable.InvocationType getInvocationType() {
        return Invocable.InvocationType.NON_BLOCKING;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        String hostHeader = request.getHeaders().get(HttpHeader.HOST);
        Target target = routes.resolve(hostHeader).orElse(null);
        boolean stale = switch (target) {
            case Target.Upstream u -> !wakeups.serving().test(u.port());
            case Target.Pool p -> !balancer.anyServing(p);
            case null, default -> false;
        };
        if (target != null && !stale) return serve(target, request, response, callback);
        if (hostHeader == null || hostHeader.isBlank()) {
            ErrorPages.noApp(response, callback, "(no Host header)");
            return true;
        }
        String host = RouteTable.hostOnly(hostHeader);
        if (!stale && unknown.contains(host)) {
            ErrorPages.noApp(response, callback, host);
            return true;
        }
        long routesVersion = routes.version();
        offThread(request, callback, () -> wake(hostHeader, host, stale, routesVersion, request, response, callback));
        return true;
    }

    private void wake(String hostHeader, String host, boolean stale, long routesVersion,
                      Request request, Response response, Callback callback) {
        wakeups.waker().wake(hostHeader).copy().orTimeout(wakeups.maxWait().toMillis(), TimeUnit.MILLISECONDS)
                .whenComplete((wake, failure) -> {
                    try {
                        if (!stale && wake instanceof Waker.Wake.NoApp) unknown.add(host, routesVersion);
                        answer(wake, failure, stale, host, request, response, callback);
                    } catch (Throwable t) {
                        callback.failed(t);
                    }
                });
    }

    private void answer(Waker.Wake wake, Throwable failure, boolean stale, String host,
                        Request request, Response response, Callback callback) throws Exception {
        if (failure != null) {
            if (failure instanceof TimeoutException) ErrorPages.waking(response, callback, host);
            else {
                LOG.warn("waking the app at {} failed", host, failure);
                ErrorPages.appDown(response, callback, host);
            }
            return;
        }
        switch (wake) {
            case Waker.Wake.Serve s -> serve(s.target(), request, response, callback);
            // a stale route (its app stopped) that cannot be woken keeps the answer it had: 502
            case Waker.Wake.NoApp n when stale -> ErrorPages.appDown(response, callback, host);
            case Waker.Wake.NoApp n -> ErrorPages.noApp(response, callback, host);
            case Waker.Wake.Down d -> ErrorPages.appDown(response, callback, host);
            case Waker.Wake.Failing f -> ErrorPages.failingToStart(response, callback, host, f.retryAfter());
        }
    }

    private boolean serve(Target target, Request request, Response response, Callback callback) throws Exception {
        if (target instanceof Target.Pool pool) {
            Target.Upstream member = balancer.pick(pool, 0);
            // every instance is between a crash and its restart, or failing its health check
            if (member == null) {
                ErrorPages.appStarting(response, callback, RouteTable.hostOnly(request.getHeaders().get(HttpHeader.HOST)));
                return true;
            }
            target = member;
        }
        switch (target) {
            case Target.Pool p -> throw new AssertionError("a pool's member was chosen above");
            case Target.Upstream u -> {
                if (restarting.test(u.port())) {
                    // whatever may have bound the crashed app's port meanwhile is not the app
                    ErrorPages.appStarting(response, callback, RouteTable.hostOnly(request.getHeaders().get(HttpHeader.HOST)));
                    return true;
                }
                recent.record(u.port());
                request.setAttribute(UpstreamProxy.TARGET_ATTRIBUTE, u);
                if (isUpgrade(request)) offThread(request, callback, () -> upstream(request, response, callback));
                else upstream(request, response, callback);
            }
            case Target.StaticSite s -> offThread(request, callback,
                    () -> staticSites.handle(request, response, callback, s));
        }
        return true;
    }

    private void upstream(Request request, Response response, Callback callback) throws Exception {
        if (!super.handle(request, response, callback)) ErrorPages.appDown(response, callback, RouteTable.hostOnly(
                request.getHeaders().get(HttpHeader.HOST)));
    }

    /** A WebSocket upgrade (HTTP/1.1 Upgrade, or HTTP/2's extended CONNECT): its handshake with the app blocks. */
    private static boolean isUpgrade(Request request) {
        return request.getHeaders().contains(HttpHeader.UPGRADE) || HttpMethod.CONNECT.is(request.getMethod());
    }

    private interface Work {
        void run() throws Exception;
    }

    private static void offThread(Request request, Callback callback, Work work) {
        request.getComponents().getExecutor().execute(() -> {
            try {
                work.run();
            } catch (Throwable t) {
                callback.failed(t);
            }
        });
    }
}
