package dev.slipway.testing;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

/** Requests to the apps listener addressed by Host, as a browser resolving *.localhost would send them. */
public final class Apps {
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private Apps() {}

    /** GET {@code url} (http://host:port/path) by connecting to loopback with that Host header. */
    public static Http.Response get(String url) {
        URI u = URI.create(url);
        int port = u.getPort();
        String path = (u.getRawPath() == null || u.getRawPath().isEmpty() ? "/" : u.getRawPath())
                + (u.getRawQuery() == null ? "" : "?" + u.getRawQuery());
        try {
            HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .header("Host", u.getHost() + ":" + port).timeout(Duration.ofSeconds(10)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            return new Http.Response(r.statusCode(), r.headers().map(), r.body());
        } catch (Exception e) {
            return new Http.Response(-1, Map.of(), e.toString());
        }
    }
}
