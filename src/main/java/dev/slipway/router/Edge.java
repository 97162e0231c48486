package dev.slipway.router;

import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Server;

/**
 * What sits in front of the router on the apps server: more listeners (HTTPS) and a handler that sees each
 * request before it is routed (ACME challenges, the HTTP→HTTPS redirect). {@link #NONE}: plain HTTP only.
 */
public interface Edge {
    Edge NONE = new Edge() {
        @Override
        public Handler wrap(Handler router) {
            return router;
        }

        @Override
        public void connect(Server server, HttpConfiguration http) {
            // no listener of its own
        }
    };

    /** The handler the apps server runs, given the router's. */
    Handler wrap(Handler router);

    /** Adds the edge's own connectors to the apps server, based on the HTTP listener's configuration. */
    void connect(Server server, HttpConfiguration http);
}
