package dev.slipway.testing;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.core.Json;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;

/** A small HTTP client for tests against a real server. */
public final class Http {
    public record Response(int status, Map<String, List<String>> headers, String body) {
        public JsonNode json() {
            try {
                return Json.MAPPER.readTree(body);
            } catch (Exception e) {
                throw new AssertionError("response is not JSON (" + status + "): " + body, e);
            }
        }

        public String header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .map(e -> e.getValue().get(0)).findFirst().orElse(null);
        }
    }

    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final String base;
    private final String key;

    public Http(String base, String key) {
        this.base = base;
        this.key = key;
    }

    public Http withKey(String otherKey) {
        return new Http(base, otherKey);
    }

    public Response get(String path) {
        return send(HttpRequest.newBuilder(URI.create(base + path)).GET());
    }

    public Response post(String path, String json) {
        return send(HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    public Response send(String method, String path, String contentType, byte[] body) {
        var b = HttpRequest.newBuilder(URI.create(base + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
        if (contentType != null) b.header("Content-Type", contentType);
        return send(b);
    }

    public Response send(HttpRequest.Builder builder) {
        if (key != null) builder.header("Authorization", "Bearer " + key);
        HttpRequest request = builder.timeout(Duration.ofSeconds(90)).build();
        Response response;
        try {
            HttpResponse<String> r = CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
            response = new Response(r.statusCode(), r.headers().map(), r.body());
        } catch (Exception e) {
            throw new AssertionError("request failed: " + e, e);
        }
        Contract.check(request.method(), request.uri(), request.headers().map(), bodyOf(request), response);
        return response;
    }

    /** The bytes a request sends, read back from its publisher (tests send small bodies). */
    private static byte[] bodyOf(HttpRequest request) {
        return request.bodyPublisher().map(p -> {
            var out = new ByteArrayOutputStream();
            var done = new CompletableFuture<Void>();
            p.subscribe(new Flow.Subscriber<ByteBuffer>() {
                @Override public void onSubscribe(Flow.Subscription s) { s.request(Long.MAX_VALUE); }
                @Override public void onNext(ByteBuffer b) {
                    byte[] chunk = new byte[b.remaining()];
                    b.get(chunk);
                    out.writeBytes(chunk);
                }
                @Override public void onError(Throwable t) { done.completeExceptionally(t); }
                @Override public void onComplete() { done.complete(null); }
            });
            done.join();
            return out.toByteArray();
        }).orElse(new byte[0]);
    }
}
