package dev.slipway.client;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real HTTP proxy in front of a real server that injects network faults: for a chosen request it
 * can forward the request and then drop the connection before answering (the server did the work,
 * the client never hears of it), or answer 503 without forwarding. Records every request it saw.
 */
final class FlakyProxy implements AutoCloseable {
    enum Fault { DROP_ANSWER, UNAVAILABLE }

    record Seen(String method, String path, String idempotencyKey, int status, String replayed) {}

    private static final Set<String> HOP = Set.of("connection", "content-length", "expect", "host", "upgrade",
            "transfer-encoding", "keep-alive");

    private final HttpServer server;
    private final String upstream;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final Map<String, AtomicInteger> faults = new ConcurrentHashMap<>();
    private final Map<String, Fault> kinds = new ConcurrentHashMap<>();
    private final List<Seen> seen = new CopyOnWriteArrayList<>();

    private FlakyProxy(String upstream) throws IOException {
        this.upstream = upstream;
        this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/", this::handle);
        server.start();
    }

    static FlakyProxy to(String upstream) {
        try {
            return new FlakyProxy(upstream);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** The next {@code times} requests {@code "METHOD /path"} (path without query, prefix match) meet {@code fault}. */
    void inject(String methodAndPathPrefix, Fault fault, int times) {
        faults.put(methodAndPathPrefix, new AtomicInteger(times));
        kinds.put(methodAndPathPrefix, fault);
    }

    List<Seen> seen() {
        return List.copyOf(seen);
    }

    private Fault faultFor(String method, String path) {
        for (var e : faults.entrySet()) {
            String[] mp = e.getKey().split(" ", 2);
            if (mp[0].equals(method) && path.startsWith(mp[1]) && e.getValue().getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                return kinds.get(e.getKey());
            }
        }
        return null;
    }

    private void handle(HttpExchange exchange) throws IOException {
        String method = exchange.getRequestMethod();
        URI uri = exchange.getRequestURI();
        String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
        Fault fault = faultFor(method, uri.getPath());
        if (fault == Fault.UNAVAILABLE) {
            byte[] body = "{\"error\":{\"code\":\"internal_error\",\"message\":\"proxy: upstream unavailable\",\"request_id\":\"req_proxy\"}}".getBytes();
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(503, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
            seen.add(new Seen(method, uri.getPath(), key, 503, null));
            return;
        }
        byte[] requestBody;
        try (InputStream in = exchange.getRequestBody()) {
            requestBody = in.readAllBytes();
        }
        HttpRequest.Builder forward = HttpRequest.newBuilder(URI.create(upstream + uri.getRawPath()
                        + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery())))
                .timeout(Duration.ofSeconds(90))
                .method(method, requestBody.length == 0 ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(requestBody));
        exchange.getRequestHeaders().forEach((name, values) -> {
            if (!HOP.contains(name.toLowerCase())) values.forEach(v -> forward.header(name, v));
        });
        HttpResponse<InputStream> response;
        try {
            response = client.send(forward.build(), HttpResponse.BodyHandlers.ofInputStream());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        seen.add(new Seen(method, uri.getPath(), key, response.statusCode(),
                response.headers().firstValue("Idempotent-Replayed").orElse(null)));
        if (fault == Fault.DROP_ANSWER) {
            response.body().readAllBytes(); // the server has answered: the work is done
            response.body().close();
            exchange.close(); // no status line sent: the connection just closes
            return;
        }
        response.headers().map().forEach((name, values) -> {
            if (!HOP.contains(name.toLowerCase()) && !name.startsWith(":")) exchange.getResponseHeaders().put(name, values);
        });
        exchange.sendResponseHeaders(response.statusCode(), 0); // chunked: works for event streams too
        try (InputStream in = response.body(); OutputStream out = exchange.getResponseBody()) {
            byte[] buf = new byte[8192];
            int n;
            while ((n = in.read(buf)) >= 0) {
                out.write(buf, 0, n);
                out.flush();
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        client.shutdownNow();
    }
}
