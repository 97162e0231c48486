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

    /** A built static site (react-vite) served by the router itself, with SPA fallback. */
    record StaticSite(Path root) implements Target {
        public StaticSite {
            root = root.toAbsolutePath().normalize();
        }
    }
}
