package dev.slipway.router;

import dev.slipway.runtime.Instance;
import dev.slipway.runtime.local.RuntimeFixture;
import dev.slipway.runtime.TestApps;
import dev.slipway.testing.Await;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.RecordingLog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

@EndToEnd
class AppsListenerTest {
    static RuntimeFixture fixture;
    static RouteTable routes;
    static AppsListener listener;
    static AppsClient client;
    static Instance blue;
    static Instance green;
    static String shop;

    @BeforeAll
    static void start() {
        fixture = RuntimeFixture.h2();
        blue = fixture.runtime.start(TestApps.spec("blue", Map.of()), new RecordingLog());
        green = fixture.runtime.start(TestApps.spec("green", Map.of()), new RecordingLog());
        routes = new RouteTable("localhost");
        listener = AppsListener.start("127.0.0.1", 0, routes, fixture.runtime::restarting);
        client = new AppsClient(listener.port());
        shop = "shop.localhost:" + listener.port();
    }

    @AfterAll
    static void stop() {
        listener.close();
        fixture.close();
    }

    @BeforeEach
    void blueIsProduction() {
        routes.setProduction("shop", new Target.Upstream(blue.port()));
    }

    @Test
    void routesProductionEachDeploymentAndACustomDomain() {
        routes.setDeployment("shop", "b1ue0001", new Target.Upstream(blue.port()));
        routes.setDeployment("shop", "9reen002", new Target.Upstream(green.port()));
        routes.setDomain("shop.example.com", "shop");

        assertThat(client.get(shop, "/").body()).isEqualTo("app:blue");
        assertThat(client.get("shop-b1ue0001.localhost:" + listener.port(), "/").body()).isEqualTo("app:blue");
        assertThat(client.get("shop-9reen002.localhost:" + listener.port(), "/").body()).isEqualTo("app:green");
        assertThat(client.get("shop.example.com", "/").body()).isEqualTo("app:blue");
        assertThat(client.get("SHOP.LOCALHOST", "/").body()).isEqualTo("app:blue");
        Http.Response r = client.get(shop, "/");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("Content-Type")).isEqualTo("text/plain");
        assertThat(r.headers().get("date")).as("one Date header, the app's").hasSize(1);
    }

    @Test
    void anUnknownHostGetsA404Page() {
        Http.Response r = client.get("nope.localhost:" + listener.port(), "/anything");
        assertThat(r.status()).isEqualTo(404);
        assertThat(r.header("Content-Type")).startsWith("text/html");
        assertThat(r.body()).contains("No app at nope.localhost");
    }

    @Test
    void anAppThatDoesNotAnswerGetsA502Page() throws Exception {
        int unused;
        try (ServerSocket s = new ServerSocket(0)) {
            unused = s.getLocalPort();
        }
        routes.setProduction("down", new Target.Upstream(unused));
        Http.Response r = client.get("down.localhost", "/");
        assertThat(r.status()).isEqualTo(502);
        assertThat(r.header("Content-Type")).startsWith("text/html");
        assertThat(r.body()).contains("The app at down.localhost is not responding");
    }

    @Test
    void theAppSeesForwardedHeadersAndTheOriginalHost() throws Exception {
        // a real app: what a client claims of its address never reaches it (the JDK's client sends no Via)
        Http.Response r = client.send(client.request(shop, "/headers").header("X-Forwarded-For", "203.0.113.9")
                .header("X-Real-IP", "6.6.6.6").header("Forwarded", "for=6.6.6.6").GET());
        var h = r.json();
        assertThat(h.get("host").asText()).isEqualTo(shop);
        assertThat(h.get("x-forwarded-for").asText()).isEqualTo("127.0.0.1");
        assertThat(h.get("x-real-ip").asText()).isEqualTo("127.0.0.1");
        assertThat(h.get("x-forwarded-proto").asText()).isEqualTo("http");
        assertThat(h.get("x-forwarded-host").asText()).isEqualTo(shop);
        assertThat(h.get("x-forwarded-port").asText()).isEqualTo(Integer.toString(listener.port()));
        assertThat(h.get("forwarded").asText()).contains("for=\"127.0.0.1\"").contains("proto=http").doesNotContain("6.6.6.6");
        assertThat(h.get("via").asText()).startsWith("1.1 ").doesNotContain(",");
    }

    @Test
    void aStreamedResponseReachesTheClientAsItIsWritten() throws Exception {
        var response = client.open(shop, "/stream");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type")).hasValue("text/event-stream");
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
            // the app writes its last event only after /release: a buffering proxy would never deliver the first
            String first = CompletableFuture.supplyAsync(() -> readLine(reader)).get(5, TimeUnit.SECONDS);
            assertThat(first).isEqualTo("data: first");
            assertThat(client.get(shop, "/release").body()).isEqualTo("released");
            StringBuilder rest = new StringBuilder();
            CompletableFuture.runAsync(() -> {
                String line;
                while ((line = readLine(reader)) != null) rest.append(line).append('\n');
            }).get(5, TimeUnit.SECONDS);
            assertThat(rest.toString()).contains("data: last");
        }
    }

    @Test
    void aLargeRequestBodyStreamsToTheApp() {
        byte[] body = new byte[3 * 1024 * 1024];
        new Random(7).nextBytes(body);
        for (int i = 0; i < body.length; i++) body[i] = (byte) ('a' + (body[i] & 15)); // text, to compare as a string
        Http.Response r = client.send(client.request(shop, "/echo").POST(HttpRequest.BodyPublishers.ofByteArray(body)));
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.body()).isEqualTo(new String(body, StandardCharsets.US_ASCII));
    }

    @Test
    void switchingProductionUnderLoadFailsNoRequest() throws Exception {
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger done = new AtomicInteger();
        AtomicInteger seenBlue = new AtomicInteger();
        AtomicInteger seenGreen = new AtomicInteger();
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        Thread[] clients = new Thread[4];
        for (int i = 0; i < clients.length; i++) {
            clients[i] = Thread.ofPlatform().name("load-" + i).start(() -> {
                while (running.get()) {
                    try {
                        Http.Response r = client.get(shop, "/");
                        if (r.status() == 200 && r.body().equals("app:blue")) seenBlue.incrementAndGet();
                        else if (r.status() == 200 && r.body().equals("app:green")) seenGreen.incrementAndGet();
                        else failures.add(r.status() + " " + r.body());
                    } catch (AssertionError e) {
                        failures.add(e.getMessage());
                    }
                    done.incrementAndGet();
                }
            });
        }
        long end = System.nanoTime() + Duration.ofSeconds(3).toNanos();
        int switches = 0;
        while (System.nanoTime() < end) {
            int target = done.get() + 50;
            Await.until(Duration.ofSeconds(10), "50 more requests", () -> done.get() >= target);
            Instance next = switches % 2 == 0 ? green : blue;
            routes.setProduction("shop", new Target.Upstream(next.port()));
            switches++;
        }
        running.set(false);
        for (Thread t : clients) t.join(10_000);
        System.out.printf("[measure] %d requests in 3 s through the router by 4 clients, %d production switches, %d failed%n",
                done.get(), switches, failures.size());
        assertThat(failures).isEmpty();
        assertThat(switches).isGreaterThanOrEqualTo(4);
        assertThat(seenBlue.get()).isPositive();
        assertThat(seenGreen.get()).isPositive();
    }

    @Test
    void switchingBackToTheWarmPreviousAppIsImmediate() {
        routes.setProduction("shop", new Target.Upstream(green.port()));
        assertThat(client.get(shop, "/").body()).isEqualTo("app:green");
        long t0 = System.nanoTime();
        routes.setProduction("shop", new Target.Upstream(blue.port())); // the rollback
        long switched = System.nanoTime();
        Http.Response first = client.get(shop, "/");
        long answered = System.nanoTime();
        System.out.printf("[measure] rollback switch %d us, first request after it answered by the old app in %.2f ms%n",
                (switched - t0) / 1000, (answered - switched) / 1e6);
        assertThat(first.body()).as("the very next request").isEqualTo("app:blue");
    }

    @Test
    void routerOverheadIsSmall() {
        int n = 1500;
        for (int i = 0; i < 300; i++) { // warm both paths
            client.get(shop, "/");
            TestApps.get(blue.port(), "/");
        }
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) assertThat(TestApps.get(blue.port(), "/")).isEqualTo("app:blue");
        long direct = System.nanoTime() - t0;
        t0 = System.nanoTime();
        for (int i = 0; i < n; i++) assertThat(client.get(shop, "/").body()).isEqualTo("app:blue");
        long routed = System.nanoTime() - t0;
        double directMs = direct / 1e6 / n, routedMs = routed / 1e6 / n;
        System.out.printf("[measure] sequential GET: direct %.3f ms, through the router %.3f ms, overhead %.3f ms%n",
                directMs, routedMs, routedMs - directMs);
        assertThat(routedMs - directMs).isLessThan(10.0);
    }

    private static String readLine(BufferedReader reader) {
        try {
            return reader.readLine();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
