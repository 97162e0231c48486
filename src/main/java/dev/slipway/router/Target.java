package dev.slipway.router;

import java.nio.file.Path;
import java.util.List;

/** Where the apps listener sends a request. */
public sealed interface Target permits Target.Upstream, Target.Pool, Target.StaticSite {

    /** An app's instances on {@code host}: one {@link Upstream}, or a {@link Pool} of its replicas. */
    static Target app(String host, List<Integer> ports) {
        if (ports.size() == 1) return new Upstream(host, ports.getFirst());
        return new Pool(ports.stream().map(p -> new Upstream(host, p)).toList());
    }

    /** The app instances this target reaches: none for a static site. */
    default List<Upstream> upstreams() {
        return switch (this) {
            case Upstream u -> List.of(u);
            case Pool p -> p.members();
            case StaticSite s -> List.of();
        };
    }

    /** The upstream serving on {@code port}, or null. */
    default Upstream member(int port) {
        return switch (this) {
            case Upstream u -> u.port() == port ? u : null;
            case Pool p -> p.members().stream().filter(u -> u.port() == port).findFirst().orElse(null);
            case StaticSite s -> null;
        };
    }

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
     * Several instances (replicas) of one app: each request goes to one that serves, the one with the fewest requests
     * under way, and an idempotent request whose instance dies before answering is sent to another.
     */
    record Pool(List<Upstream> members) implements Target {
        public Pool {
            if (members.size() < 2) throw new IllegalArgumentException("a pool has two members or more");
            members = List.copyOf(members);
        }

        /** The pool without the member on {@code port}: one upstream when one is left, null when none. */
        public Target without(int port) {
            List<Upstream> left = members.stream().filter(u -> u.port() != port).toList();
            if (left.size() == members.size()) return this;
            if (left.isEmpty()) return null;
            return left.size() == 1 ? left.getFirst() : new Pool(left);
        }
    }

    /**
     * A built static site served by the router itself.
     *
     * @param spaFallback a path that names no file gets {@code index.html} (a single-page app built by Vite
     *                    without a {@code 404.html}); otherwise it gets the site's {@code 404.html}, or a 404 page
     * @param rules       its own headers and redirects
     */
    record StaticSite(Path root, boolean spaFallback, SiteRules rules) implements Target {
        public StaticSite {
            root = root.toAbsolutePath().normalize();
            if (rules == null) rules = SiteRules.NONE;
        }

        public StaticSite(Path root, boolean spaFallback) {
            this(root, spaFallback, SiteRules.NONE);
        }

        /** A single-page app. */
        public StaticSite(Path root) {
            this(root, true);
        }
    }
}
