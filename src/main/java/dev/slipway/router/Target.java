package dev.slipway.router;

import java.nio.file.Path;

/** Where the apps listener sends a request. */
public sealed interface Target permits Target.Upstream, Target.StaticSite {

    /** An app process listening on a loopback port. */
    record Upstream(int port) implements Target {
        public Upstream {
            if (port < 1 || port > 65535) throw new IllegalArgumentException("port out of range: " + port);
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
