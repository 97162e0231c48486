package dev.slipway.router;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * The apps listener's public HTTP port: a plain HTTP/1.1 relay in front of Jetty (issue 18). A plain request to
 * a running app is relayed by a selector thread of its own, as bytes (the head rewritten as the proxy did: the
 * same X-Forwarded-*, Via and Forwarded fields, hop-by-hop fields dropped), over a per-thread pool of keep-alive
 * connections to the app. Any other connection (wake-ups, static sites, WebSocket upgrades, error pages, the
 * edge's ACME challenges and redirects, unknown hosts, anything unusual) is handed whole to Jetty on a loopback
 * port, behind a PROXY protocol line so that Jetty still sees the client's address.
 */
final class Relay implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Relay.class);
    /** Dropped from a relayed request or response (RFC 9110 §7.6.1), as Jetty's proxy drops them. */
    private static final String[] HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "proxy-authorization",
            "proxy-authenticate", "te", "trailer", "upgrade"};
    /** Replaced by the relay's own values. */
    private static final String[] FORWARDED = {"x-forwarded-for", "x-forwarded-proto", "x-forwarded-host",
            "x-forwarded-port", "via", "forwarded"};

    record Route(Target.Upstream target, RelayFraming body, boolean close) {}

    /** A client connection's addresses, as the forwarded fields spell them: read once per connection. */
    record Peer(String client, String local, int localPort) {
        static Peer of(SocketChannel channel) throws IOException {
            InetSocketAddress remote = (InetSocketAddress) channel.getRemoteAddress();
            InetSocketAddress local = (InetSocketAddress) channel.getLocalAddress();
            return new Peer(remote.getAddress().getHostAddress(), local.getAddress().getHostAddress(), local.getPort());
        }
    }

    private final ServerSocketChannel server;
    private final InetSocketAddress jetty;
    private final RouteTable routes;
    private final IntPredicate restarting;
    private final Wakeups wakeups;
    private final RecentRequests recent;
    private final Edge edge;
    private final String via;
    private final RelayLoop[] loops;
    private final Thread[] threads;
    private final Thread acceptor;

    Relay(ServerSocketChannel server, InetSocketAddress jetty, RouteTable routes, IntPredicate restarting,
          Wakeups wakeups, RecentRequests recent, Edge edge, String viaHost) throws IOException {
        this.server = server;
        this.jetty = jetty;
        this.routes = routes;
        this.restarting = restarting;
        this.wakeups = wakeups;
        this.recent = recent;
        this.edge = edge;
        this.via = "1.1 " + viaHost;
        int n = Math.max(1, Runtime.getRuntime().availableProcessors());
        loops = new RelayLoop[n];
        threads = new Thread[n];
        for (int i = 0; i < n; i++) {
            loops[i] = new RelayLoop(this);
            threads[i] = Thread.ofPlatform().name("apps-relay-" + i).daemon().start(loops[i]);
        }
        server.configureBlocking(true);
        acceptor = Thread.ofPlatform().name("apps-relay-accept").daemon().start(this::accept);
    }

    private void accept() {
        int next = 0;
        while (server.isOpen()) {
            SocketChannel c;
            try {
                c = server.accept();
            } catch (IOException e) {
                if (server.isOpen()) LOG.warn("apps listener cannot accept: {}", e.toString());
                if (!server.isOpen()) return;
                continue;
            }
            loops[next].adopt(c);
            next = (next + 1) % loops.length;
        }
    }

    InetSocketAddress jetty() {
        return jetty;
    }

    RecentRequests recent() {
        return recent;
    }

    /**
     * The app a request is relayed to, or null when Jetty answers it. The body's framing is checked whoever
     * answers: a request that could be read two ways is refused here.
     */
    Route route(RelayHead head) throws RelayHead.Malformed {
        int te = head.count("transfer-encoding");
        long length = head.contentLength(400);
        if (te > 0 && length >= 0) throw new RelayHead.Malformed(400, "both Transfer-Encoding and Content-Length");
        if (te > 1) throw new RelayHead.Malformed(400, "several Transfer-Encoding fields");
        if (!"HTTP/1.1".equals(head.third)) return null;
        if ("CONNECT".equals(head.first) || "PRI".equals(head.first)) return null;
        if (head.count("upgrade") > 0 || head.count("http2-settings") > 0 || head.count("host") != 1) return null;
        String expect = head.get("expect");
        if (expect != null && !expect.equalsIgnoreCase("100-continue")) return null;
        if (!plainTarget(head.second)) return null;
        String host = head.get("host");
        if (edge.takesPlain(host, head.second)) return null;
        if (!(routes.resolve(host).orElse(null) instanceof Target.Upstream u)) return null;
        // another runtime's address (a cluster Service) takes Jetty's path: one connection per request there,
        // so that a production switch is not outlived by a pooled connection to the old pods (UpstreamProxy)
        if (!u.loopback()) return null;
        if (!wakeups.serving().test(u.port()) || restarting.test(u.port())) return null;
        RelayFraming body;
        if (te == 1) {
            if (!head.get("transfer-encoding").equalsIgnoreCase("chunked")) return null; // other codings: as Jetty does
            body = RelayFraming.chunked();
        } else {
            body = length < 0 ? RelayFraming.none() : RelayFraming.length(length);
        }
        return new Route(u, body, head.connectionHas("close"));
    }

    /**
     * An origin-form target whose path Jetty would take as it is. Anything it might normalize, decode or
     * refuse (dot segments, percent-encoding, empty segments, parameters, non-ASCII) goes to Jetty, which also
     * keeps the edge's challenge path and URI compliance checks where they are.
     */
    static boolean plainTarget(String target) {
        if (target.isEmpty() || target.charAt(0) != '/') return false;
        char prev = 0;
        for (int i = 0; i < target.length(); i++) {
            char c = target.charAt(i);
            if (c == '?') return true;
            if (c == '%' || c == ';' || c == '\\' || c == '#' || c > 0x7e || (prev == '/' && (c == '.' || c == '/'))) return false;
            prev = c;
        }
        return true;
    }

    /** The request head the app gets. */
    ByteBuffer rewriteRequest(RelayHead head, Peer peer) {
        String clientAddress = peer.client();
        StringBuilder out = new StringBuilder(head.length + 256);
        out.append(head.first).append(' ').append(head.second).append(" HTTP/1.1\r\n");
        List<String> options = head.connectionOptions();
        String priorFor = null;
        String priorVia = null;
        String priorForwarded = null;
        for (RelayHead.Field f : head.fields) {
            String name = f.name();
            if (oneOf(name, FORWARDED)) {
                if (priorFor == null && name.equalsIgnoreCase("x-forwarded-for")) priorFor = f.value();
                else if (name.equalsIgnoreCase("via")) priorVia = priorVia == null ? f.value() : priorVia + ", " + f.value();
                else if (name.equalsIgnoreCase("forwarded")) priorForwarded = priorForwarded == null ? f.value() : priorForwarded + ", " + f.value();
                continue;
            }
            if (hopByHop(name, options)) continue;
            out.append(name).append(": ").append(f.value()).append("\r\n");
        }
        String host = head.get("host");
        // the same values as ForwardedHeaders and Jetty's proxy: the last entry is the address this listener saw
        out.append("X-Forwarded-For: ").append(priorFor == null || priorFor.isBlank() ? clientAddress : priorFor + ", " + clientAddress).append("\r\n");
        out.append("X-Forwarded-Proto: http\r\n");
        out.append("X-Forwarded-Host: ").append(host).append("\r\n");
        out.append("X-Forwarded-Port: ").append(peer.localPort()).append("\r\n");
        out.append("Via: ").append(priorVia == null ? via : priorVia + ", " + via).append("\r\n");
        String forwarded = "by=" + quote(peer.local()) + ";for=" + quote(clientAddress)
                + ";host=" + quote(host) + ";proto=http";
        out.append("Forwarded: ").append(priorForwarded == null ? forwarded : priorForwarded + ", " + forwarded).append("\r\n\r\n");
        return ByteBuffer.wrap(out.toString().getBytes(StandardCharsets.ISO_8859_1));
    }

    /** The response head the client gets: hop-by-hop fields dropped, {@code Connection: close} when it closes. */
    ByteBuffer rewriteResponse(RelayHead head, boolean close) {
        StringBuilder out = new StringBuilder(head.length + 32);
        out.append("HTTP/1.1 ").append(head.second);
        if (!head.third.isEmpty()) out.append(' ').append(head.third);
        out.append("\r\n");
        List<String> options = head.connectionOptions();
        for (RelayHead.Field f : head.fields) {
            if (hopByHop(f.name(), options)) continue;
            out.append(f.name()).append(": ").append(f.value()).append("\r\n");
        }
        if (close) out.append("Connection: close\r\n");
        out.append("\r\n");
        return ByteBuffer.wrap(out.toString().getBytes(StandardCharsets.ISO_8859_1));
    }

    private static boolean hopByHop(String name, List<String> connectionOptions) {
        if (oneOf(name, HOP_BY_HOP)) return true;
        for (String o : connectionOptions) if (o.equalsIgnoreCase(name)) return true;
        return false;
    }

    /** Whether {@code name} is one of {@code names}, ignoring case, without allocating. */
    private static boolean oneOf(String name, String[] names) {
        for (String n : names) if (n.length() == name.length() && n.equalsIgnoreCase(name)) return true;
        return false;
    }

    private static String quote(String s) {
        if (s.indexOf('"') < 0 && s.indexOf('\\') < 0) return "\"" + s + "\"";
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    static String defaultViaHost() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "localhost";
        }
    }

    @Override
    public void close() {
        RelayLoop.closeQuietly(server);
        try {
            acceptor.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (RelayLoop loop : loops) loop.stop();
        for (Thread t : threads) {
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
