package dev.slipway.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.svix.Webhook;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.slipway.core.Json;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.function.Predicate;

/**
 * A webhook receiver on loopback: records every request it gets and answers as the test tells it.
 * Signatures are checked with Svix's {@code com.svix.Webhook}, an independent implementation of the
 * Standard Webhooks verification (not Slipway's signing code).
 */
public final class WebhookReceiver implements AutoCloseable {
    /** One request as it arrived. */
    public record Received(Map<String, List<String>> headers, String body, long arrivedNanos) {
        public String webhookId() { return header("webhook-id"); }
        public String signature() { return header("webhook-signature"); }

        public String header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .map(e -> e.getValue().get(0)).findFirst().orElse(null);
        }

        public JsonNode json() {
            try {
                return Json.MAPPER.readTree(body);
            } catch (IOException e) {
                throw new AssertionError("webhook body is not JSON: " + body, e);
            }
        }

        public String type() { return json().get("type").asText(); }

        /** True when the independent verifier accepts the request with this secret (signature and timestamp). */
        public boolean verifiesWith(String secret) {
            try {
                new Webhook(secret).verify(body, headers);
                return true;
            } catch (Exception e) {
                return false;
            }
        }
    }

    /** How the receiver answers a request: a status code (it may block first). */
    @FunctionalInterface
    public interface Answer {
        int status(Received r) throws InterruptedException;
    }

    private final HttpServer server;
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private volatile Answer answer = r -> 200;

    private WebhookReceiver(HttpServer server) {
        this.server = server;
    }

    public static WebhookReceiver start() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
            WebhookReceiver receiver = new WebhookReceiver(server);
            server.createContext("/", receiver::handle);
            server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
            server.start();
            return receiver;
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the webhook receiver", e);
        }
    }

    public String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    public void answer(Answer a) {
        this.answer = a;
    }

    public List<Received> received() {
        return List.copyOf(received);
    }

    public List<Received> received(String path) {
        return received.stream().filter(r -> path.equals(r.header("x-receiver-path"))).toList();
    }

    /** Waits for a request that matches. */
    public Received await(Duration timeout, String what, Predicate<Received> match) {
        return Await.value(timeout, what, () -> received.stream().filter(match).findFirst().orElse(null));
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange; InputStream in = exchange.getRequestBody()) {
            String body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            Map<String, List<String>> headers = new LinkedHashMap<>(exchange.getRequestHeaders());
            headers.put("x-receiver-path", List.of(exchange.getRequestURI().getPath()));
            Received r = new Received(headers, body, System.nanoTime());
            received.add(r);
            int status;
            try {
                status = answer.status(r);
            } catch (InterruptedException e) {
                return;
            }
            exchange.sendResponseHeaders(status, -1);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
