package dev.slipway.webhooks;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Await;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.ServerPerStore;
import dev.slipway.testing.TestServer;
import dev.slipway.testing.WebhookReceiver;
import java.time.Instant;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Delivery to a real receiver on loopback (private targets allowed, short retry delays), every
 * request checked with an independent Standard Webhooks verifier: signing, retries with one
 * webhook-id, giving up, 410, rotation, redelivery, and a slow endpoint next to a fast one.
 */
@EachStore
@EndToEnd
class WebhookDeliveryTest {
    static final List<Duration> FAST = List.of(Duration.ofMillis(300), Duration.ofMillis(300), Duration.ofMillis(300));
    private static final Duration SOON = Duration.ofSeconds(10);

    final Dialect kind = server.kind();

    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.start(c -> c.webhooks(new WebhookSettings(true, FAST)));
    static TestServer.Tenant tenant;
    static WebhookReceiver receiver;
    static final Map<String, WebhookReceiver.Answer> answers = new ConcurrentHashMap<>();

    @EachStore.Before
    static void start() {
        tenant = server.tenant(Tier.TEAM);
        receiver = WebhookReceiver.start();
        receiver.answer(r -> answers.getOrDefault(r.header("x-receiver-path"), x -> 200).status(r));
    }

    @EachStore.After
    static void stop() {
        receiver.close();
        answers.clear();
    }

    record Hook(String id, String secret, String path) {}

    static Hook hook(String path) {
        var r = tenant.http().post("/v1/webhooks", "{\"url\":\"" + receiver.url(path) + "\",\"events\":[\"*\"]}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return new Hook(r.json().at("/data/id").asText(), r.json().at("/data/secret").asText(), path);
    }

    static String test(Hook h) {
        var r = tenant.http().post("/v1/webhooks/" + h.id() + "/test", "");
        assertThat(r.status()).as(r.body()).isEqualTo(202);
        assertThat(r.json().at("/data/status").asText()).isEqualTo("pending");
        return r.json().at("/data/id").asText();
    }

    static JsonNode delivery(Hook h, String deliveryId) {
        for (JsonNode d : tenant.http().get("/v1/webhooks/" + h.id() + "/deliveries?limit=100").json().get("data")) {
            if (d.get("id").asText().equals(deliveryId)) return d;
        }
        throw new AssertionError("no delivery " + deliveryId);
    }

    static JsonNode awaitDelivery(Hook h, String deliveryId, String status) {
        return Await.value(SOON, "delivery " + deliveryId + " to be " + status, () -> {
            JsonNode d = delivery(h, deliveryId);
            return d.get("status").asText().equals(status) ? d : null;
        });
    }

    @Test
    void aTestEventArrivesSignedAsTheStandardSays() {
        Hook h = hook("/plain-" + kind);
        String deliveryId = test(h);
        WebhookReceiver.Received r = receiver.await(SOON, "the test event", x -> h.path().equals(x.header("x-receiver-path")));
        assertThat(r.verifiesWith(h.secret())).as("verified by com.svix.Webhook").isTrue();
        assertThat(r.verifiesWith(Signer.newSecret())).as("another secret does not verify").isFalse();
        assertThat(r.webhookId()).startsWith("msg_");
        assertThat(r.signature()).startsWith("v1,").doesNotContain(" ");
        assertThat(Long.parseLong(r.header("webhook-timestamp"))).isCloseTo(System.currentTimeMillis() / 1000, Offset.offset(30L));
        assertThat(r.header("content-type")).isEqualTo("application/json");
        assertThat(r.type()).isEqualTo("webhook.test");
        assertThat(r.json().at("/data/endpoint_id").asText()).isEqualTo(h.id());
        JsonNode d = awaitDelivery(h, deliveryId, "succeeded");
        assertThat(d.get("attempts").asInt()).isEqualTo(1);
        assertThat(d.get("last_status_code").asInt()).isEqualTo(200);
        assertThat(d.get("webhook_id").asText()).isEqualTo(r.webhookId());
        assertThat(d.get("delivered_at").isNull()).isFalse();
        // a tampered body does not verify
        var tampered = new WebhookReceiver.Received(r.headers(), r.body().replace("test", "tset"), r.arrivedNanos());
        assertThat(tampered.verifiesWith(h.secret())).isFalse();
    }

    @Test
    void aReceiverFailingTwiceGetsTheSameWebhookIdTheThirdTime() {
        Hook h = hook("/flaky-" + kind);
        AtomicInteger calls = new AtomicInteger();
        answers.put(h.path(), r -> switch (calls.incrementAndGet()) {
            case 1 -> 500;
            case 2 -> 503;
            default -> 200;
        });
        String deliveryId = test(h);
        JsonNode d = awaitDelivery(h, deliveryId, "succeeded");
        List<WebhookReceiver.Received> got = receiver.received(h.path());
        assertThat(got).hasSize(3);
        assertThat(got).extracting(WebhookReceiver.Received::webhookId).containsOnly(got.get(0).webhookId());
        assertThat(got).allMatch(r -> r.verifiesWith(h.secret()));
        assertThat(got).extracting(WebhookReceiver.Received::body).containsOnly(got.get(0).body());
        // retried after the schedule's delay (300 ms ± 20 %), not at once
        for (int i = 1; i < 3; i++) {
            assertThat(Duration.ofNanos(got.get(i).arrivedNanos() - got.get(i - 1).arrivedNanos())).isGreaterThan(Duration.ofMillis(230));
        }
        assertThat(d.get("attempts").asInt()).isEqualTo(3);
        assertThat(d.get("last_status_code").asInt()).isEqualTo(200);
        assertThat(d.get("last_error").isNull()).isTrue();
        // the endpoint's failure streak is cleared just after the delivery's success is recorded
        dev.slipway.testing.Await.until(SOON, "the failure streak to end",
                () -> tenant.http().get("/v1/webhooks/" + h.id()).json().at("/data/failing_since").isNull());
    }

    @Test
    void aDeliveryGivesUpWhenTheScheduleIsUsedUp() {
        Hook h = hook("/down-" + kind);
        answers.put(h.path(), r -> 502);
        String deliveryId = test(h);
        JsonNode d = awaitDelivery(h, deliveryId, "failed");
        assertThat(d.get("attempts").asInt()).isEqualTo(FAST.size() + 1);
        assertThat(d.get("last_status_code").asInt()).isEqualTo(502);
        assertThat(d.get("last_error").asText()).contains("HTTP 502").contains("gave up after 4 attempts");
        assertThat(d.get("next_attempt_at").isNull()).isTrue();
        JsonNode endpoint = tenant.http().get("/v1/webhooks/" + h.id()).json().get("data");
        assertThat(endpoint.get("enabled").asBoolean()).as("failing for less than 5 days").isTrue();
        assertThat(endpoint.get("failing_since").isNull()).isFalse();
        assertThat(receiver.received(h.path())).hasSize(FAST.size() + 1);
    }

    @Test
    void gone410DisablesTheEndpointAndSaysWhy() {
        Hook h = hook("/gone-" + kind);
        answers.put(h.path(), r -> 410);
        String deliveryId = test(h);
        JsonNode d = awaitDelivery(h, deliveryId, "failed");
        assertThat(d.get("attempts").asInt()).isEqualTo(1);
        assertThat(d.get("last_status_code").asInt()).isEqualTo(410);
        JsonNode endpoint = tenant.http().get("/v1/webhooks/" + h.id()).json().get("data");
        assertThat(endpoint.get("enabled").asBoolean()).isFalse();
        assertThat(endpoint.get("disabled_reason").asText()).contains("410 Gone");
        assertThat(tenant.http().post("/v1/webhooks/" + h.id() + "/test", "").status()).isEqualTo(409);
        assertThat(receiver.received(h.path())).hasSize(1);
    }

    @Test
    void afterARotationBothSecretsVerifyForTheOverlap() {
        Hook h = hook("/rotated-" + kind);
        var r = tenant.http().post("/v1/webhooks/" + h.id() + "/rotate-secret", "");
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        String fresh = r.json().at("/data/secret").asText();
        assertThat(fresh).isNotEqualTo(h.secret()).startsWith("whsec_");
        assertThat(Instant.parse(r.json().at("/data/previous_secret_expires_at").asText()))
                .isBetween(Instant.now().plus(Duration.ofHours(23)), Instant.now().plus(Duration.ofHours(25)));
        test(h);
        WebhookReceiver.Received got = receiver.await(SOON, "an event after the rotation", x -> h.path().equals(x.header("x-receiver-path")));
        assertThat(got.signature().split(" ")).hasSize(2).allMatch(s -> s.startsWith("v1,"));
        assertThat(got.verifiesWith(fresh)).as("the new secret verifies").isTrue();
        assertThat(got.verifiesWith(h.secret())).as("the old secret verifies during the overlap").isTrue();
    }

    @Test
    void redeliverSendsTheSameEventAgainWithItsWebhookId() {
        Hook h = hook("/again-" + kind);
        String first = test(h);
        awaitDelivery(h, first, "succeeded");
        var r = tenant.http().post("/v1/webhooks/" + h.id() + "/deliveries/" + first + "/redeliver", "");
        assertThat(r.status()).as(r.body()).isEqualTo(202);
        String second = r.json().at("/data/id").asText();
        assertThat(second).isNotEqualTo(first);
        awaitDelivery(h, second, "succeeded");
        List<WebhookReceiver.Received> got = receiver.received(h.path());
        assertThat(got).hasSize(2);
        assertThat(got.get(1).webhookId()).isEqualTo(got.get(0).webhookId());
        assertThat(got.get(1).body()).isEqualTo(got.get(0).body());
        assertThat(got.get(1).verifiesWith(h.secret())).isTrue();
        assertThat(tenant.http().post("/v1/webhooks/" + h.id() + "/deliveries/whd_unknown/redeliver", "").status()).isEqualTo(404);
        // the deliveries page: newest first, paginated
        var page = tenant.http().get("/v1/webhooks/" + h.id() + "/deliveries?limit=1");
        assertThat(page.json().at("/data/0/id").asText()).isEqualTo(second);
        assertThat(page.json().at("/pagination/has_more").asBoolean()).isTrue();
        var next = tenant.http().get("/v1/webhooks/" + h.id() + "/deliveries?limit=1&cursor=" + page.json().at("/pagination/next_cursor").asText());
        assertThat(next.json().at("/data/0/id").asText()).isEqualTo(first);
        assertThat(next.json().at("/pagination/has_more").asBoolean()).isFalse();
    }

    @Test
    void twoServersOnOneStoreShareTheWorkAndNeverSendToOneEndpointTwiceAtOnce() throws Exception {
        List<Hook> hooks = List.of(hook("/shared-a-" + kind), hook("/shared-b-" + kind), hook("/shared-c-" + kind));
        Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
        Map<String, AtomicInteger> most = new ConcurrentHashMap<>();
        for (Hook h : hooks) {
            inFlight.put(h.path(), new AtomicInteger());
            most.put(h.path(), new AtomicInteger());
            answers.put(h.path(), r -> {
                int now = inFlight.get(h.path()).incrementAndGet();
                most.get(h.path()).accumulateAndGet(now, Math::max);
                try {
                    Thread.sleep(15); // a receiver that takes a moment, so overlapping sends would show
                } finally {
                    inFlight.get(h.path()).decrementAndGet();
                }
                return 200;
            });
        }
        try (var peer = server.startPeer()) {
            var other = new Http("http://127.0.0.1:" + peer.apiPort(), tenant.key());
            int perHook = 12;
            for (int i = 0; i < perHook; i++) {
                for (Hook h : hooks) {
                    var r = (i % 2 == 0 ? tenant.http() : other).post("/v1/webhooks/" + h.id() + "/test", "");
                    assertThat(r.status()).as(r.body()).isEqualTo(202);
                }
            }
            for (Hook h : hooks) {
                Await.until(SOON, "all events of " + h.path(), () -> receiver.received(h.path()).size() >= perHook);
            }
            for (Hook h : hooks) {
                List<WebhookReceiver.Received> got = receiver.received(h.path());
                assertThat(got).as("each event once (no server died)").hasSize(perHook);
                assertThat(got.stream().map(WebhookReceiver.Received::webhookId).distinct()).hasSize(perHook);
                assertThat(most.get(h.path()).get()).as("requests in flight to " + h.path() + " at once").isEqualTo(1);
            }
        }
    }

    @Test
    void aSlowEndpointBlocksNeitherAnotherEndpointNorTheApi() throws Exception {
        Hook slow = hook("/slow-" + kind);
        Hook fast = hook("/fast-" + kind);
        CountDownLatch release = new CountDownLatch(1);
        answers.put(slow.path(), r -> {
            release.await(8, TimeUnit.SECONDS); // inside the 10 s limit: a slow success
            return 200;
        });
        try {
            String slowDelivery = test(slow);
            receiver.await(SOON, "the slow endpoint's request", x -> slow.path().equals(x.header("x-receiver-path")));
            long before = System.nanoTime();
            String second = test(slow); // queued behind the one in flight: one request per endpoint at a time
            String fastDelivery = test(fast);
            assertThat(Duration.ofNanos(System.nanoTime() - before)).as("the API answers while a receiver hangs")
                    .isLessThan(Duration.ofSeconds(2));
            awaitDelivery(fast, fastDelivery, "succeeded");
            assertThat(receiver.received(slow.path())).as("one request in flight to the slow endpoint").hasSize(1);
            assertThat(delivery(slow, slowDelivery).get("status").asText()).isEqualTo("pending");
            release.countDown();
            awaitDelivery(slow, slowDelivery, "succeeded");
            awaitDelivery(slow, second, "succeeded");
        } finally {
            release.countDown();
        }
    }
}
