package dev.slipway.router;

import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** The HTML pages the apps listener answers itself: no app, app down, app starting. */
final class ErrorPages {
    private ErrorPages() {}

    static void noApp(Response response, Callback callback, String host) {
        write(response, callback, 404, "No app here", "No app at " + host + ".",
                "Check the address: production is http://&lt;project&gt;.&lt;apps domain&gt;, a deployment http://&lt;project&gt;-&lt;id&gt;.&lt;apps domain&gt;.");
    }

    static void appDown(Response response, Callback callback, String host) {
        write(response, callback, 502, "App not responding", "The app at " + host + " is not responding.",
                "It may have crashed or stopped. Its deployment logs say why.");
    }

    static void appStarting(Response response, Callback callback, String host) {
        response.getHeaders().put(HttpHeader.RETRY_AFTER, "5");
        write(response, callback, 503, "App starting", "The app at " + host + " is starting.",
                "It is being restarted; try again in a few seconds.");
    }

    /** A dormant app is being started for this request and did not answer within the wait. */
    static void waking(Response response, Callback callback, String host) {
        response.getHeaders().put(HttpHeader.RETRY_AFTER, "5");
        write(response, callback, 503, "App starting", "The app at " + host + " is starting.",
                "It was asleep and is being woken up; try again in a few seconds.");
    }

    /** A woken app's start failed a moment ago: the next one is tried only after its backoff. */
    static void failingToStart(Response response, Callback callback, String host, Duration retryAfter) {
        long seconds = Math.max(1, (retryAfter.toMillis() + 999) / 1000);
        response.getHeaders().put(HttpHeader.RETRY_AFTER, Long.toString(seconds));
        write(response, callback, 503, "App failing to start", "The app at " + host + " did not start.",
                "It is started again on a request in " + seconds + " s or later. Its deployment logs say why it failed.");
    }

    static void timeout(Response response, Callback callback, String host) {
        write(response, callback, 504, "App too slow", "The app at " + host + " did not answer in time.", "");
    }

    /** The client's request body came slower than the listener's minimum rate. */
    static void clientTooSlow(Response response, Callback callback) {
        response.getHeaders().put(HttpHeader.CONNECTION, "close");
        write(response, callback, 408, "Request Timeout", "The request did not arrive in time.", "");
    }

    static void write(Response response, Callback callback, int status, String title, String headline, String detailHtml) {
        String html = """
                <!doctype html>
                <html lang="en"><head><meta charset="utf-8"><title>%d %s</title>
                <style>body{font:16px system-ui,sans-serif;margin:15vh auto;max-width:36rem;color:#222}h1{font-size:1.4rem}p{color:#555}</style>
                </head><body><h1>%s</h1><p>%s</p><p><small>%d · Slipway</small></p></body></html>
                """.formatted(status, escape(title), escape(headline), detailHtml, status);
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/html;charset=utf-8");
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        byte[] body = html.getBytes(StandardCharsets.UTF_8);
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
        response.write(true, ByteBuffer.wrap(body), callback);
    }

    static String escape(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }
}
