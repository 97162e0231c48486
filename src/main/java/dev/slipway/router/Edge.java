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

    /**
     * Whether the edge answers a plain-HTTP request itself (an ACME challenge, a redirect to HTTPS), given its
     * raw Host field and request target: the relay then hands it to Jetty, where the edge's handler runs.
     */
    default boolean takesPlain(String hostHeader, String target) {
        return false;
    }

    /** Adds the edge's own connectors to the apps server, based on the HTTP listener's configuration. */
    void connect(Server server, HttpConfiguration http);
}
