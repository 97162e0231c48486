package dev.slipway.router;

import dev.slipway.net.TrustedProxies;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The forwarded fields an app gets from the router on Jetty's paths (plain requests, WebSocket upgrades, HTTPS),
 * the same as the relay writes on its own ({@link Relay#rewriteRequest}): what the listener saw of the client.
 * A client's own fields of these names are claims anyone can make, and are replaced; only a trusted proxy's are
 * kept, with the router's appended (X-Forwarded-For, Via, Forwarded) or as they are (X-Forwarded-Proto, -Host,
 * -Port), and X-Real-IP is then the client the proxies name (nginx's {@code real_ip_recursive}).
 */
final class ForwardedHeaders {
    /** The fields set here, and so dropped from what the client sent. */
    static final List<String> NAMES = List.of("X-Forwarded-For", "X-Real-IP", "X-Forwarded-Proto", "X-Forwarded-Host",
            "X-Forwarded-Port", "Via", "Forwarded");

    private final TrustedProxies trusted;
    private final String viaHost;

    ForwardedHeaders(TrustedProxies trusted, String viaHost) {
        this.trusted = trusted;
        this.viaHost = viaHost;
    }

    Map<String, String> of(Request request) {
        var fields = request.getHeaders();
        String client = Request.getRemoteAddr(request);
        boolean proxy = trusted.any() && request.getConnectionMetaData().getRemoteSocketAddress() instanceof InetSocketAddress a
                && a.getAddress() != null && trusted.trusts(a.getAddress());
        String host = fields.get(HttpHeader.HOST);
        String proto = request.isSecure() ? "https" : "http";
        String priorFor = proxy ? joined(request, HttpHeader.X_FORWARDED_FOR) : null;
        Map<String, String> out = new LinkedHashMap<>();
        out.put(HttpHeader.X_FORWARDED_FOR.asString(), priorFor == null ? client : priorFor + ", " + client);
        out.put("X-Real-IP", proxy ? trusted.client(priorFor, client) : client);
        out.put(HttpHeader.X_FORWARDED_PROTO.asString(), proxyOr(request, proxy, HttpHeader.X_FORWARDED_PROTO, proto));
        String forwardedHost = proxyOr(request, proxy, HttpHeader.X_FORWARDED_HOST, host);
        if (forwardedHost != null) out.put(HttpHeader.X_FORWARDED_HOST.asString(), forwardedHost);
        out.put(HttpHeader.X_FORWARDED_PORT.asString(),
                proxyOr(request, proxy, HttpHeader.X_FORWARDED_PORT, Integer.toString(Request.getLocalPort(request))));
        String via = version(request) + " " + viaHost;
        out.put(HttpHeader.VIA.asString(), prefixed(proxy ? joined(request, HttpHeader.VIA) : null, via));
        String element = "by=" + quote(Request.getLocalAddr(request)) + ";for=" + quote(client) + ";host=" + quote(host == null ? "" : host)
                + ";proto=" + proto;
        out.put(HttpHeader.FORWARDED.asString(), prefixed(proxy ? joined(request, HttpHeader.FORWARDED) : null, element));
        return out;
    }

    /** The proxy's value of a field when it sent one, else the router's own. */
    private static String proxyOr(Request request, boolean proxy, HttpHeader name, String own) {
        String sent = proxy ? request.getHeaders().get(name) : null;
        return sent == null ? own : sent;
    }

    /** Every value of the field, joined with ", "; null when there is none. */
    private static String joined(Request request, HttpHeader name) {
        List<String> values = request.getHeaders().getValuesList(name).stream().filter(v -> !v.isBlank()).toList();
        return values.isEmpty() ? null : String.join(", ", values);
    }

    private static String prefixed(String prior, String own) {
        return prior == null ? own : prior + ", " + own;
    }

    /** The HTTP version as Via spells it: "1.1", "1.0". */
    private static String version(Request request) {
        String protocol = request.getConnectionMetaData().getProtocol();
        return protocol.regionMatches(true, 0, "HTTP/", 0, 5) ? protocol.substring(5) : protocol;
    }

    /** A quoted-string (RFC 9110 §5.6.4), as the relay writes it. */
    static String quote(String s) {
        if (s.indexOf('"') < 0 && s.indexOf('\\') < 0) return "\"" + s + "\"";
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /** The name this server gives itself in Via: the host's name, as Jetty's proxy gives it. */
    static String defaultViaHost() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "localhost";
        }
    }
}
