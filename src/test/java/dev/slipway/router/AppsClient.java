package dev.slipway.router;

import dev.slipway.testing.Http;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** HTTP to the apps listener with a chosen Host header (needs -Djdk.httpclient.allowRestrictedHeaders=host). */
final class AppsClient {
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final int port;

    AppsClient(int port) {
        this.port = port;
    }

    HttpRequest.Builder request(String host, String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).header("Host", host)
                .timeout(Duration.ofSeconds(10));
    }

    Http.Response get(String host, String path) {
        return send(request(host, path).GET());
    }

    Http.Response send(HttpRequest.Builder builder) {
        try {
            HttpResponse<String> r = CLIENT.send(builder.build(), HttpResponse.BodyHandlers.ofString());
            return new Http.Response(r.statusCode(), r.headers().map(), r.body());
        } catch (Exception e) {
            throw new AssertionError("request failed: " + e, e);
        }
    }

    HttpResponse<InputStream> open(String host, String path) throws Exception {
        return CLIENT.send(request(host, path).GET().build(), HttpResponse.BodyHandlers.ofInputStream());
    }

    int port() {
        return port;
    }
}
