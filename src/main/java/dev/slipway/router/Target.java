package dev.slipway.router;

import java.nio.file.Path;

/** Where the apps listener sends a request. */
public sealed interface Target permits Target.Upstream, Target.StaticSite {

    /**
     * An app listening on {@code host:port}: a local process on loopback, or (another runtime) an address
     * the router reaches over the network, such as a cluster Service.
     */
    record Upstream(String host, int port) implements Target {
        public static final String LOOPBACK = "127.0.0.1";

        public Upstream {
            if (host == null || host.isBlank()) throw new IllegalArgumentException("upstream host is empty");
            if (port < 1 || port > 65535) throw new IllegalArgumentException("port out of range: " + port);
        }

        /** An app process on a loopback port. */
        public Upstream(int port) {
            this(LOOPBACK, port);
        }

        public boolean loopback() {
            return LOOPBACK.equals(host);
        }
    }

    /**
     * A built static site served by the router itself.
     *
     * @param spaFallback a path that names no file gets {@code index.html} (a single-page app built by Vite
     *                    without a {@code 404.html}); otherwise it gets the site's {@code 404.html}, or a 404 page
     */
    record StaticSite(Path root, boolean spaFallback) implements Target {
        public StaticSite {
            root = root.toAbsolutePath().normalize();
        }

        /** A single-page app. */
        public StaticSite(Path root) {
            this(root, true);
        }
    }
}
