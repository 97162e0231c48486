package dev.slipway.net;

import org.eclipse.jetty.server.ServerConnector;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

/**
 * The door of a public listener (the apps listener's HTTP and HTTPS ports share one; the API has its own): the
 * {@link ClientLimits}, the {@link TrustedProxies}, and the connections open now, per client address and in all.
 * A connection is counted once when it is accepted and once when it closes, never per request.
 */
public final class ClientGate {
    /** The key of a connection that counts toward the total only: a trusted proxy's. */
    public static final long UNKEYED = Long.MIN_VALUE;
    private static final BiFunction<Long, Integer, Integer> RELEASE = (key, n) -> n <= 1 ? null : n - 1;

    private final ClientLimits limits;
    private final TrustedProxies trusted;
    private final ConcurrentHashMap<Long, Integer> perClient = new ConcurrentHashMap<>();
    private final AtomicInteger total = new AtomicInteger();
    private final byte[] refusal;
    private final byte[] timeout;

    /**
     * @param refusal what a plain-HTTP connection refused at accept is sent (a whole 503 response)
     * @param timeout what a plain-HTTP connection whose head is late is sent (a whole 408 response)
     */
    private ClientGate(ClientLimits limits, TrustedProxies trusted, byte[] refusal, byte[] timeout) {
        this.limits = limits;
        this.trusted = trusted;
        this.refusal = refusal;
        this.timeout = timeout;
    }

    /** For the apps listener: plain-text answers, as the router's other pages. */
    public static ClientGate forApps(ClientLimits limits, TrustedProxies trusted) {
        return new ClientGate(limits, trusted,
                plain(503, "Service Unavailable", "Too many connections from your address, or to this server; try again shortly."),
                plain(408, "Request Timeout", "The request did not arrive in time."));
    }

    /** For the API: answers in its error shape. */
    public static ClientGate forApi(ClientLimits limits, TrustedProxies trusted) {
        return new ClientGate(limits, trusted,
                json(503, "Service Unavailable", "too_many_connections",
                        "Too many connections from your address, or to this server; try again shortly."),
                json(408, "Request Timeout", "request_timeout", "The request did not arrive in time."));
    }

    public ClientLimits limits() {
        return limits;
    }

    public TrustedProxies trusted() {
        return trusted;
    }

    /** The 503 response sent to a connection refused at accept. */
    public byte[] refusal() {
        return refusal;
    }

    /** The 408 response sent to a connection whose request was late. */
    public byte[] timeout() {
        return timeout;
    }

    /**
     * What a connection from {@code a} is counted under: the address (IPv4) or its /64 (IPv6: what one host or
     * one home is usually given), or {@link #UNKEYED} for a trusted proxy. IPv4 keys are 0..2^32-1; an IPv6 /64
     * could only meet one of them from ::/32, which holds no address a client connects from.
     */
    public long key(InetAddress a) {
        if (trusted.any() && trusted.trusts(a)) return UNKEYED;
        byte[] b = a.getAddress();
        long k = 0;
        int n = b.length == 4 ? 4 : 8;
        for (int i = 0; i < n; i++) k = (k << 8) | (b[i] & 0xff);
        return k;
    }

    /** Counts a new connection under {@code key}; false, and nothing counted, when its address or the whole is full. */
    public boolean open(long key) {
        if (total.incrementAndGet() > limits.total()) {
            total.decrementAndGet();
            return false;
        }
        if (key == UNKEYED) return true;
        if (perClient.merge(key, 1, Integer::sum) > limits.perClient()) {
            perClient.computeIfPresent(key, RELEASE);
            total.decrementAndGet();
            return false;
        }
        return true;
    }

    /** A connection counted under {@code key} has closed. */
    public void close(long key) {
        total.decrementAndGet();
        if (key != UNKEYED) perClient.computeIfPresent(key, RELEASE);
    }

    /**
     * Holds a public Jetty connector to this gate: a late request head gets the 408 ({@link HeadDeadlines}), and
     * with {@code counted} its connections are counted at accept and refused over the caps (the 503 first when
     * {@code plain}: a TLS connection cannot be answered before its handshake, so it is only closed).
     */
    public void guard(ServerConnector connector, boolean counted, boolean plain) {
        connector.addBean(new HeadDeadlines(connector, limits.headTimeout(), timeout));
        if (counted) connector.addBean(new GateAcceptListener(this, plain));
    }

    /** Connections open now. */
    public int open() {
        return total.get();
    }

    private static byte[] plain(int status, String reason, String message) {
        return response(status, reason, "text/plain; charset=utf-8", status + " " + reason + ": " + message + "\n");
    }

    private static byte[] json(int status, String reason, String code, String message) {
        return response(status, reason, "application/json",
                "{\"error\":{\"code\":\"" + code + "\",\"message\":\"" + message + "\",\"request_id\":\"-\"}}");
    }

    private static byte[] response(int status, String reason, String type, String body) {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        String head = "HTTP/1.1 " + status + " " + reason + "\r\nContent-Type: " + type + "\r\nContent-Length: " + b.length
                + (status == 503 ? "\r\nRetry-After: 5" : "") + "\r\nConnection: close\r\n\r\n";
        byte[] h = head.getBytes(StandardCharsets.ISO_8859_1);
        byte[] out = new byte[h.length + b.length];
        System.arraycopy(h, 0, out, 0, h.length);
        System.arraycopy(b, 0, out, h.length, b.length);
        return out;
    }
}
