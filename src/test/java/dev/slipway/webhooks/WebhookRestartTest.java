package dev.slipway.webhooks;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Alone;
import dev.slipway.testing.Await;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.GitServer;
import dev.slipway.testing.Http;
import dev.slipway.testing.JavaProcess;
import dev.slipway.testing.TestStore;
import dev.slipway.testing.WebhookReceiver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The server as a separate process, killed with SIGKILL after the state changes were committed and
 * while the first of their webhooks is in flight (unacknowledged): after a restart on the same store
 * every event is delivered, the interrupted one again with the same webhook-id.
 */
@Alone
@ParameterizedClass(name = "{0}")
@MethodSource("dev.slipway.testing.TestStore#kinds")
@EndToEnd
class WebhookRestartTest {
    private static final Pattern API = Pattern.compile("API listening on http://127\\.0\\.0\\.1:(\\d+)/v1");

    @Parameter
    Dialect kind;

    GitServer git;
    TestStore store;
    WebhookReceiver receiver;
    Map<String, String> env;
    JavaProcess server;
    final CountDownLatch hold = new CountDownLatch(1);

    @BeforeEach
    void setUp() {
        git = GitServer.start();
        store = TestStore.create(kind);
        receiver = WebhookReceiver.start();
        env = new HashMap<>(Map.of(
                "SLIPWAY_DATA_DIR", store.dataDir().resolve("data").toString(),
                "SLIPWAY_GIT_HOSTS", "github=" + git.baseUrl(),
                "SLIPWAY_WEBHOOKS_ALLOW_PRIVATE", "true",
                "SLIPWAY_WEBHOOKS_RETRY_SCHEDULE", "300ms,300ms"));
        if (kind == Dialect.POSTGRES) env.put("SLIPWAY_DATABASE_URL", store.jdbcUrl());
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        hold.countDown();
        try {
            if (server != null && server.process().isAlive()) {
                server.process().toHandle().destroy();
                server.waitForExit(Duration.ofSeconds(30));
            }
        } finally {
            if (server != null) server.close();
            receiver.close();
            store.close();
            git.close();
        }
    }

    private Http start(String key) {
        server = JavaProcess.start(env, store.dataDir(), "server", "--api-port", "0", "--apps-port", "0");
        Matcher m = API.matcher(server.awaitLine(l -> API.matcher(l).find(), Duration.ofSeconds(60)));
        assertThat(m.find()).isTrue();
        if (key == null) key = server.awaitLine(l -> l.trim().startsWith("sk_"), Duration.ofSeconds(5)).trim();
        return new Http("http://127.0.0.1:" + m.group(1), key);
    }

    @Test
    void eventsCommittedBeforeAKillAreDeliveredAfterTheRestart() throws Exception {
        AtomicBoolean first = new AtomicBoolean(true);
        receiver.answer(r -> {
            if (first.getAndSet(false)) hold.await(60, TimeUnit.SECONDS); // never answers while the server lives
            return 200;
        });
        Http http = start(null);
        String key = server.output().lines().map(String::trim).filter(l -> l.startsWith("sk_")).findFirst().orElseThrow();
        var created = http.post("/v1/webhooks", "{\"url\":\"" + receiver.url("/hook") + "\",\"events\":[\"*\"]}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        String secret = created.json().at("/data/secret").asText();
        String webhook = created.json().at("/data/id").asText();
        var migration = http.post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"acme/missing\",\"framework\":\"node-express\"}");
        assertThat(migration.status()).as(migration.body()).isEqualTo(201);
        String m = migration.json().at("/data/id").asText();
        Await.until(Duration.ofSeconds(30), "the migration to fail", () ->
                http.get("/v1/migrations/" + m).json().at("/data/status").asText().equals("failed"));
        WebhookReceiver.Received inFlight = receiver.await(Duration.ofSeconds(10), "the first webhook", x -> true);
        // all five events are committed; one is in flight, unanswered, and the others wait behind it
        assertThat(receiver.received()).hasSize(1);

        server.process().destroyForcibly();
        assertThat(server.waitForExit(Duration.ofSeconds(30))).isEqualTo(137);
        long restarted = System.nanoTime();
        Http again = start(key);

        Await.until(Duration.ofSeconds(20), "the five events after the restart", () -> distinct().size() == 5);
        Duration took = Duration.ofNanos(System.nanoTime() - restarted);
        assertThat(took).as("the previous run's lease is taken back at once, not after it expires").isLessThan(Duration.ofSeconds(20));
        Map<String, String> events = distinct();
        assertThat(events.keySet()).contains(inFlight.webhookId());
        assertThat(events.values()).containsExactlyInAnyOrder("deployment.queued", "migration.processing",
                "deployment.building", "deployment.failed", "migration.failed");
        List<WebhookReceiver.Received> got = receiver.received();
        assertThat(got).allMatch(x -> x.verifiesWith(secret));
        assertThat(got.stream().filter(x -> x.webhookId().equals(inFlight.webhookId())))
                .as("the interrupted delivery came again with its webhook-id").hasSizeGreaterThanOrEqualTo(2);
        Await.until(Duration.ofSeconds(10), "every delivery to be recorded as succeeded", () -> {
            JsonNode list = again.get("/v1/webhooks/" + webhook + "/deliveries").json().get("data");
            if (list.size() != 5) return false;
            for (JsonNode d : list) if (!d.get("status").asText().equals("succeeded")) return false;
            return true;
        });
    }

    /** webhook-id to event type of every distinct event received. */
    private Map<String, String> distinct() {
        Map<String, String> out = new LinkedHashMap<>();
        for (var r : receiver.received()) out.putIfAbsent(r.webhookId(), r.type());
        return out;
    }
}
