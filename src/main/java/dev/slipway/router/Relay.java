package dev.slipway.router;

import dev.slipway.net.ClientGate;
import dev.slipway.net.TrustedProxies;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.function.IntPredicate;

/**
 * The apps listener's public HTTP port: a plain HTTP/1.1 relay in front of Jetty. A plain request to
 * a running app is relayed by a selector thread of its own, as bytes (the head rewritten as the proxy did: the
 * same X-Forwarded-*, Via and Forwarded fields, hop-by-hop fields dropped), over a per-thread pool of keep-alive
 * connections to the app. Any other connection (wake-ups, static sites, WebSocket upgrades, error pages, the
 * edge's ACME challenges and redirects, unknown hosts, anything unusual) is handed whole to Jetty on a loopback
 * port, behind a PROXY protocol line so that Jetty still sees the client's address.
 */
final class Relay implements AutoCloseable {
    static final byte[] CLOSE = RelayHead.ascii("close");
    static final byte[] CHUNKED = RelayHead.ascii("chunked");
    private static final byte[] CONTINUE = RelayHead.ascii("100-continue");
    static final byte[] HTTP11 = RelayHead.ascii("HTTP/1.1");
    private static final byte[] CONNECT = RelayHead.ascii("CONNECT");
    private static final byte[] PRI = RelayHead.ascii("PRI");
    private static final byte[] CRLF = RelayHead.ascii("\r\n");
    private static final byte[] COLON = RelayHead.ascii(": ");
    private static final byte[] COMMA = RelayHead.ascii(", ");
    private static final byte[] SP_HTTP11_CRLF = RelayHead.ascii(" HTTP/1.1\r\n");
    private static final byte[] XFF = RelayHead.ascii("X-Forwarded-For: ");
    private static final byte[] XRI = RelayHead.ascii("X-Real-IP: ");
    private static final byte[] XFP = RelayHead.ascii("X-Forwarded-Proto: http\r\n");
    private static final byte[] XFH = RelayHead.ascii("X-Forwarded-Host: ");
    private static final byte[] XFPORT = RelayHead.ascii("X-Forwarded-Port: ");
    private static final byte[] VIA = RelayHead.ascii("Via: ");
    private static final byte[] FORWARDED = RelayHead.ascii("Forwarded: ");
    private static final byte[] HOST_PARAM = RelayHead.ascii(";host=");
    private static final byte[] PROTO_END = RelayHead.ascii(";proto=http\r\n\r\n");
    private static final byte[] STATUS_START = RelayHead.ascii("HTTP/1.1 ");
    private static final byte[] CONNECTION_CLOSE = RelayHead.ascii("Connection: close\r\n");

    /** Where and how a request is relayed: one per connection, set anew for each request. */
    static final class Route {
        Target.Upstream target;
        /** The pool {@link #target} was chosen from, or null: a single instance. */
        Target.Pool pool;
        boolean chunked;
        /** The body's length, -1 when there is none or it is chunked. */
        long length;
        boolean close;

        /** The body's length when the request may be sent again (0: no body), -1 when it is chunked. */
        long replayLength() {
            return chunked ? -1 : Math.max(length, 0);
        }
    }

    /** A client connection's addresses, as the forwarded fields spell them: made once per connection. */
    static final class Peer {
        final byte[] client;
        final byte[] localPort;
        /** {@code by="<local>";for="<client>"}: the start of the Forwarded element the relay adds. */
        final byte[] byFor;
        /** A proxy the operator trusts: what it says of its client is kept, and the relay's entries appended. */
        final boolean trusted;
        private final String clientText;

        private Peer(String client, String local, int localPort, boolean trusted) {
            this.client = RelayHead.ascii(client);
            this.clientText = client;
            this.localPort = RelayHead.ascii(Integer.toString(localPort));
            this.byFor = RelayHead.ascii("by=" + ForwardedHeaders.quote(local) + ";for=" + ForwardedHeaders.quote(client));
            this.trusted = trusted;
        }

        String clientText() {
            return clientText;
        }

        static Peer of(SocketChannel channel, TrustedProxies proxies) throws IOException {
            InetSocketAddress remote = (InetSocketAddress) channel.getRemoteAddress();
            InetSocketAddress local = (InetSocketAddress) channel.getLocalAddress();
            return new Peer(remote.getAddress().getHostAddress(), local.getAddress().getHostAddress(), local.getPort(),
                    proxies.any() && proxies.trusts(remote.getAddress()));
        }
    }

    /** The last Host field a connection sent, as bytes and as text: a keep-alive client sends the same each time. */
    static final class HostMemo {
        private byte[] raw = new byte[0];
        private String host = "";
        /** {@link RouteTable#hostOnly} of it. */
        private String name = "";
    }

    private final ServerSocketChannel server;
    private final InetSocketAddress jetty;
    private final RouteTable routes;
    private final IntPredicate restarting;
    private final Wakeups wakeups;
    private final RecentRequests recent;
    private final Edge edge;
    private final byte[] via;
    private final ClientGate gate;
    private final Balancer balancer;
    private final RelayLoop[] loops;
    private final Thread[] threads;

    Relay(ServerSocketChannel server, InetSocketAddress jetty, RouteTable routes, IntPredicate restarting,
          Wakeups wakeups, RecentRequests recent, Edge edge, String viaHost, ClientGate gate, Balancer balancer) throws IOException {
        this.balancer = balancer;
        this.server = server;
        this.jetty = jetty;
        this.routes = routes;
        this.restarting = restarting;
        this.wakeups = wakeups;
        this.recent = recent;
        this.edge = edge;
        this.via = RelayHead.ascii("1.1 " + viaHost);
        this.gate = gate;
        int n = loops(Runtime.getRuntime().availableProcessors());
        loops = new RelayLoop[n];
        threads = new Thread[n];
        server.configureBlocking(false);
        for (int i = 0; i < n; i++) {
            loops[i] = new RelayLoop(this);
            new RelayAcceptor(loops[i], server);
            threads[i] = Thread.ofPlatform().name("apps-relay-" + i).daemon().start(loops[i]);
        }
    }

    /**
     * One loop for every two cores: the apps it relays to run on the same machine, and each request wakes one of
     * them. On 2 cores one loop served 1.02x nginx's req/s at 1.07x its CPU per request, two loops 0.84x at 1.28x
     * (bench/engine.sh, router part): the second loop's cross-core wake-ups cost more than it added.
     */
    static int loops(int cores) {
        return Math.max(1, cores / 2);
    }

    InetSocketAddress jetty() {
        return jetty;
    }

    RecentRequests recent() {
        return recent;
    }

    ClientGate gate() {
        return gate;
    }

    Balancer balancer() {
        return balancer;
    }

    /**
     * Sets where a request is relayed to; false when Jetty answers it. The body's framing is checked whoever
     * answers: a request that could be read two ways is refused here.
     */
    boolean route(RelayHead head, HostMemo memo, Route route) throws RelayHead.Malformed {
        int te = head.count(RelayHead.TRANSFER_ENCODING);
        long length = head.contentLength(400);
        if (te > 0 && length >= 0) throw new RelayHead.Malformed(400, "both Transfer-Encoding and Content-Length");
        if (te > 1) throw new RelayHead.Malformed(400, "several Transfer-Encoding fields");
        if (!head.same(head.thirdStart, head.thirdEnd, HTTP11)) return false;
        if (head.same(head.firstStart, head.firstEnd, CONNECT) || head.same(head.firstStart, head.firstEnd, PRI)) return false;
        if (head.count(RelayHead.UPGRADE) > 0 || head.count(RelayHead.HTTP2_SETTINGS) > 0 || head.count(RelayHead.HOST) != 1) return false;
        int expect = head.first(RelayHead.EXPECT);
        if (expect >= 0 && !head.is(head.valueStart[expect], head.valueEnd[expect], CONTINUE)) return false;
        if (!plainTarget(head)) return false;
        remember(head, memo);
        if (edge != Edge.NONE && edge.takesPlain(memo.host, head.string(head.secondStart, head.secondEnd))) return false;
        Target t = routes.target(memo.name);
        Target.Upstream u;
        Target.Pool pool = null;
        if (t instanceof Target.Upstream one) {
            u = one;
        } else if (t instanceof Target.Pool p) {
            pool = p;
            u = balancer.pick(p, 0);
            if (u == null) return false; // none serves now: Jetty's path wakes it or says why
        } else {
            return false;
        }
        // another runtime's address (a cluster Service) takes Jetty's path: one connection per request there,
        // so that a production switch is not outlived by a pooled connection to the old pods (UpstreamProxy)
        if (!u.loopback()) return false;
        if (!wakeups.serving().test(u.port()) || restarting.test(u.port())) return false;
        if (te == 1) {
            int f = head.first(RelayHead.TRANSFER_ENCODING);
            if (!head.is(head.valueStart[f], head.valueEnd[f], CHUNKED)) return false; // other codings: as Jetty does
        }
        route.target = u;
        route.pool = pool;
        route.chunked = te == 1;
        route.length = length;
        route.close = head.connectionHas(CLOSE);
        return true;
    }

    /** The Host field's value as text, made once per connection while the client sends the same bytes. */
    private static void remember(RelayHead head, HostMemo memo) {
        int f = head.first(RelayHead.HOST);
        int from = head.valueStart[f];
        int to = head.valueEnd[f];
        if (!head.same(from, to, memo.raw)) {
            byte[] raw = new byte[to - from];
            head.buf.get(from, raw);
            memo.raw = raw;
            memo.host = new String(raw, StandardCharsets.ISO_8859_1);
            memo.name = RouteTable.hostOnly(memo.host);
        }
    }

    /**
     * An origin-form target whose path Jetty would take as it is. Anything it might normalize, decode or
     * refuse (dot segments, percent-encoding, empty segments, parameters, non-ASCII) goes to Jetty, which also
     * keeps the edge's challenge path and URI compliance checks where they are.
     */
    static boolean plainTarget(RelayHead head) {
        ByteBuffer b = head.buf;
        int from = head.secondStart;
        int to = head.secondEnd;
        if (from == to || b.get(from) != '/') return false;
        int prev = 0;
        for (int i = from; i < to; i++) {
            int c = b.get(i) & 0xff;
            if (c == '?') return true;
            if (c == '%' || c == ';' || c == '\\' || c == '#' || c > 0x7e || (prev == '/' && (c == '.' || c == '/'))) return false;
            prev = c;
        }
        return true;
    }

    /**
     * The request head the app gets, written into {@code out}: the forwarded fields are the listener's view
     * (ForwardedHeaders gives Jetty's path the same), a client's own claims in them dropped, unless it is a
     * trusted proxy, whose are kept with the relay's appended.
     */
    ByteBuffer rewriteRequest(RelayHead head, Peer peer, HeadWriter out) {
        ByteBuffer in = head.buf;
        int host = head.first(RelayHead.HOST);
        int hostStart = head.valueStart[host];
        int hostEnd = head.valueEnd[host];
        // a field may grow by the space after its colon (and from a proxy by the ", " joining it to the next of its
        // kind); a proxy's X-Forwarded-For may appear twice (in itself and as X-Real-IP); the Host three times,
        // quoted once; the rest is the relay's own, under 256 bytes
        out.begin(2 * head.length + 2 * head.fields + 4 * (hostEnd - hostStart) + via.length + 2 * peer.client.length
                + peer.byFor.length + peer.localPort.length + 256);
        out.put(in, head.firstStart, head.secondEnd).put(SP_HTTP11_CRLF);
        boolean trusted = peer.trusted;
        for (int f = 0; f < head.fields; f++) {
            int k = head.kind[f];
            if (k == RelayHead.X_FORWARDED_FOR || k == RelayHead.X_REAL_IP || k == RelayHead.VIA || k == RelayHead.FORWARDED) continue;
            if (!trusted && k >= RelayHead.X_FORWARDED_PROTO && k <= RelayHead.X_FORWARDED_PORT) continue;
            if (head.hopByHop(f)) continue;
            out.put(in, head.nameStart[f], head.nameEnd[f]).put(COLON).put(in, head.valueStart[f], head.valueEnd[f]).put(CRLF);
        }
        out.put(XFF);
        if (trusted) prior(head, RelayHead.X_FORWARDED_FOR, out);
        out.put(peer.client).put(CRLF);
        out.put(XRI);
        if (trusted) out.put(RelayHead.ascii(gate.trusted().client(joined(head, RelayHead.X_FORWARDED_FOR), peer.clientText)));
        else out.put(peer.client);
        out.put(CRLF);
        if (!trusted || head.count(RelayHead.X_FORWARDED_PROTO) == 0) out.put(XFP);
        if (!trusted || head.count(RelayHead.X_FORWARDED_HOST) == 0) out.put(XFH).put(in, hostStart, hostEnd).put(CRLF);
        if (!trusted || head.count(RelayHead.X_FORWARDED_PORT) == 0) out.put(XFPORT).put(peer.localPort).put(CRLF);
        out.put(VIA);
        if (trusted) prior(head, RelayHead.VIA, out);
        out.put(via).put(CRLF);
        out.put(FORWARDED);
        if (trusted) prior(head, RelayHead.FORWARDED, out);
        out.put(peer.byFor).put(HOST_PARAM).quoted(in, hostStart, hostEnd).put(PROTO_END);
        return out.done();
    }

    /** The values of every field of a kind, joined with ", "; null when there is none. */
    private static String joined(RelayHead head, int kind) {
        if (head.count(kind) == 0) return null;
        StringBuilder sb = new StringBuilder();
        for (int f = head.first(kind); f < head.fields; f++) {
            if (head.kind[f] != kind || head.valueStart[f] == head.valueEnd[f]) continue;
            if (!sb.isEmpty()) sb.append(", ");
            sb.append(head.value(f));
        }
        return sb.toString();
    }

    /** The values of every field of a kind the client sent, each followed by ", ": what the relay's own follows. */
    private static void prior(RelayHead head, int kind, HeadWriter out) {
        if (head.count(kind) == 0) return;
        for (int f = head.first(kind); f < head.fields; f++) {
            if (head.kind[f] == kind && head.valueStart[f] < head.valueEnd[f]) out.put(head.buf, head.valueStart[f], head.valueEnd[f]).put(COMMA);
        }
    }

    /** The response head the client gets: hop-by-hop fields dropped, {@code Connection: close} when it closes. */
    ByteBuffer rewriteResponse(RelayHead head, boolean close, HeadWriter out) {
        ByteBuffer in = head.buf;
        out.begin(head.length + head.fields + 32); // each field may grow by the space after its colon
        out.put(STATUS_START).put(in, head.secondStart, head.thirdStart < head.thirdEnd ? head.thirdEnd : head.secondEnd).put(CRLF);
        for (int f = 0; f < head.fields; f++) {
            if (head.hopByHop(f)) continue;
            out.put(in, head.nameStart[f], head.nameEnd[f]).put(COLON).put(in, head.valueStart[f], head.valueEnd[f]).put(CRLF);
        }
        if (close) out.put(CONNECTION_CLOSE);
        out.put(CRLF);
        return out.done();
    }

    @Override
    public void close() {
        for (RelayLoop loop : loops) loop.stop();
        for (Thread t : threads) {
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        RelayLoop.closeQuietly(server);
    }
}
