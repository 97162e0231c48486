package dev.slipway.router;

import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;

import java.util.LinkedHashMap;
import java.util.Map;

/** The X-Forwarded-* headers an app gets from the router, for plain requests and WebSocket upgrades alike. */
final class ForwardedHeaders {
    private ForwardedHeaders() {}

    static Map<String, String> of(Request request) {
        String client = Request.getRemoteAddr(request);
        String prior = request.getHeaders().get(HttpHeader.X_FORWARDED_FOR);
        String host = request.getHeaders().get(HttpHeader.HOST);
        Map<String, String> out = new LinkedHashMap<>();
        // appended: the last entry is the address this listener saw, whatever the client claimed before it
        out.put(HttpHeader.X_FORWARDED_FOR.asString(), prior == null || prior.isBlank() ? client : prior + ", " + client);
        out.put(HttpHeader.X_FORWARDED_PROTO.asString(), request.isSecure() ? "https" : "http");
        if (host != null) out.put(HttpHeader.X_FORWARDED_HOST.asString(), host);
        out.put(HttpHeader.X_FORWARDED_PORT.asString(), Integer.toString(Request.getLocalPort(request)));
        return out;
    }
}
