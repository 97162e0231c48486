package dev.slipway.webhooks;

import dev.slipway.net.AddressGuard;
import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.testing.Await;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.ServerPerStore;
import dev.slipway.testing.TestServer;
import dev.slipway.testing.WebhookReceiver;
import java.net.InetAddress;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code /v1/webhooks} API on a server that refuses private targets (the default): creating,
 * listing, paging, changing, deleting, errors, access, and secrets that never come back; the SSRF
 * guard at creation, on change and at delivery.
 */
@EachStore
@EndToEnd
class WebhookApiTest {
    /** A public address given as a literal (no DNS needed). No test here makes the server send to it. */
    private static final String PUBLIC = "http://93.184.215.14/hooks/slipway";

    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.start(); // default settings: private targets refused
    static TestServer.Tenant tenant;
    static WebhookReceiver receiver;

    @EachStore.Before
    static void start() {
        tenant = server.tenant(Tier.TEAM);
        receiver = WebhookReceiver.start();
    }

    @EachStore.After
    static void stop() {
        receiver.close();
    }

    static Http.Response create(Http http, String json) {
        return http.post("/v1/webhooks", json);
    }

    static Http.Response patch(Http http, String path, String json) {
        return http.send("PATCH", path, "application/json", json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void createShowsTheSecretOnceAndNeverAgain() {
        var r = create(tenant.http(), "{\"url\":\"" + PUBLIC + "\",\"events\":[\"deployment.live\",\"migration.failed\"],"
                + "\"description\":\"ci\"}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        JsonNode d = r.json().get("data");
        String id = d.get("id").asText();
        String secret = d.get("secret").asText();
        assertThat(secret).matches("whsec_[A-Za-z0-9+/]+={0,2}");
        assertThat(Base64.getDecoder().decode(secret.substring(6))).hasSizeBetween(24, 32);
        assertThat(r.header("Location")).endsWith("/v1/webhooks/" + id);
        assertThat(d.get("enabled").asBoolean()).isTrue();
        assertThat(d.get("events").toString()).isEqualTo("[\"deployment.live\",\"migration.failed\"]");

        var got = tenant.http().get("/v1/webhooks/" + id);
        assertThat(got.status()).isEqualTo(200);
        assertThat(got.json().get("data").has("secret")).isFalse();
        assertThat(got.body()).doesNotContain(secret).doesNotContain(secret.substring(6));
        var list = tenant.http().get("/v1/webhooks?limit=100");
        assertThat(list.body()).contains(id).doesNotContain(secret.substring(6));
        // stored sealed, not in clear
        String stored = server.slipway().database().jdbi().withHandle(h -> h.createQuery(
                "SELECT secret_enc FROM webhook_endpoints WHERE id = :id").bind("id", id).mapTo(String.class).one());
        assertThat(stored).startsWith("v1:").doesNotContain(secret.substring(6));
    }

    @Test
    void badInputIsA400NamingEachField() {
        var r = create(tenant.http(), "{\"url\":\"ftp://example.com/x\",\"events\":[\"deployment.exploded\"],\"colour\":1}");
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.json().at("/error/code").asText()).isEqualTo("invalid_request");
        assertThat(r.json().at("/error/details/url").asText()).contains("http or https");
        assertThat(r.json().at("/error/details/events").asText()).contains("deployment.live");
        assertThat(r.json().at("/error/details/colour").asText()).contains("not a field");
        assertThat(create(tenant.http(), "{\"url\":\"" + PUBLIC + "\",\"events\":[]}").json().at("/error/details/events").asText())
                .contains("non-empty");
        assertThat(create(tenant.http(), "{\"events\":[\"*\"]}").json().at("/error/details/url").asText()).isEqualTo("is required");
        assertThat(create(tenant.http(), "{\"url\":\"http://user:pw@93.184.215.14/\",\"events\":[\"*\"]}")
                .json().at("/error/details/url").asText()).contains("credentials");
        assertThat(create(tenant.http(), "{\"url\":\"not a url\",\"events\":[\"*\"]}").status()).isEqualTo(400);
        assertThat(tenant.http().send("POST", "/v1/webhooks", "text/plain", "x".getBytes()).status()).isEqualTo(415);
        String id = create(tenant.http(), "{\"url\":\"" + PUBLIC + "\",\"events\":[\"*\"]}").json().at("/data/id").asText();
        assertThat(patch(tenant.http(), "/v1/webhooks/" + id, "{}").status()).isEqualTo(400);
        assertThat(patch(tenant.http(), "/v1/webhooks/" + id, "{\"enabled\":\"yes\"}").json().at("/error/details/enabled").asText())
                .contains("true or false");
    }

    @Test
    void anEmailEndpointNeedsTheServersSmtpServer() {
        var r = create(tenant.http(), "{\"url\":\"mailto:oncall@example.com\",\"events\":[\"*\"],\"format\":\"email\"}");
        assertThat(r.status()).as(r.body()).isEqualTo(400);
        assertThat(r.json().at("/error/details/url").asText()).contains("SLIPWAY_SMTP_URL");
    }

    @Test
    void aLogDrainToAPrivateTargetIsRefusedByTheSameGuard() {
        String project = tenant.http().post("/v1/projects", "{\"source\":\"zip\"}")
                .json().at("/data/id").asText();
        for (String url : List.of("syslog://127.0.0.1:514", "syslog+tls://169.254.169.254", "https://169.254.169.254/latest/meta-data",
                "http://localhost:9200/_bulk", "syslog://[::1]:514", "https://10.0.0.1/?token=x", "syslog://[::ffff:127.0.0.1]:514")) {
            var r = tenant.http().post("/v1/projects/" + project + "/log-drains", "{\"url\":\"" + url + "\"}");
            assertThat(r.status()).as(url + " " + r.body()).isEqualTo(400);
            assertThat(r.json().at("/error/code").asText()).as(url).isEqualTo("url_not_allowed");
        }
        assertThat(tenant.http().get("/v1/projects/" + project + "/log-drains").json().get("data")).as("none was made").isEmpty();
    }

    @Test
    void privateTargetsAreRefusedWithAClearCode() {
        for (String url : List.of("http://127.0.0.1:9/x", "http://localhost/x", "http://10.1.2.3/", "http://172.20.0.1/",
                "http://192.168.1.1/", "http://169.254.169.254/latest/meta-data", "http://[::1]/", "http://[fd00::1]/",
                "http://[fe80::1]/", "http://[::ffff:127.0.0.1]/", "http://0.0.0.0/", "http://100.64.0.1/",
                "http://224.0.0.1/", "http://[64:ff9b::a00:1]/")) {
            var r = create(tenant.http(), "{\"url\":\"" + url + "\",\"events\":[\"*\"]}");
            assertThat(r.status()).as(url + " " + r.body()).isEqualTo(400);
            assertThat(r.json().at("/error/code").asText()).as(url).isEqualTo("url_not_allowed");
            assertThat(r.json().at("/error/details/url").asText()).as(url).contains("resolves to").contains("public addresses");
        }
        String id = create(tenant.http(), "{\"url\":\"" + PUBLIC + "\",\"events\":[\"*\"]}").json().at("/data/id").asText();
        var p = patch(tenant.http(), "/v1/webhooks/" + id, "{\"url\":\"http://127.0.0.1:8080/\"}");
        assertThat(p.status()).isEqualTo(400);
        assertThat(p.json().at("/error/code").asText()).isEqualTo("url_not_allowed");
        assertThat(tenant.http().get("/v1/webhooks/" + id).json().at("/data/url").asText()).isEqualTo(PUBLIC);
    }

    /** An endpoint created for a public address whose URL then changes under the API's feet (as a name can). */
    private static String endpointNowAt(String url) {
        String id = create(tenant.http(), "{\"url\":\"" + PUBLIC + "\",\"events\":[\"*\"]}").json().at("/data/id").asText();
        server.slipway().database().jdbi().useHandle(h -> h.createUpdate("UPDATE webhook_endpoints SET url = :u WHERE id = :id")
                .bind("u", url).bind("id", id).execute());
        return id;
    }

    /** Sends the endpoint a test event; its delivery once the first attempt is recorded. */
    private static JsonNode firstAttemptOfATest(String id) {
        var t = tenant.http().post("/v1/webhooks/" + id + "/test", "");
        assertThat(t.status()).as(t.body()).isEqualTo(202);
        String delivery = t.json().at("/data/id").asText();
        return Await.value(Duration.ofSeconds(15), "the first attempt to be recorded", () -> {
            for (JsonNode x : tenant.http().get("/v1/webhooks/" + id + "/deliveries").json().get("data")) {
                if (x.get("id").asText().equals(delivery) && x.get("attempts").asInt() > 0) return x;
            }
            return null;
        });
    }

    @Test
    void aDeliveryConnectsToTheAddressItCheckedNotToAnotherLookup() {
        // a rebinding name: public (192.0.2.1) at its first lookup, loopback (where the receiver is) after
        String host = "d" + UUID.randomUUID().toString().substring(0, 8) + RebindingNames.DOMAIN;
        String id = endpointNowAt("http://" + host + ":" + URI.create(receiver.url("/")).getPort() + "/rebinding");
        JsonNode d = firstAttemptOfATest(id);
        // one lookup, checked and connected to: 192.0.2.1 answers nothing. A check followed by a second
        // lookup for the connection would have sent the signed payload to the receiver on loopback.
        assertThat(RebindingNames.lookups(host)).isEqualTo(1);
        assertThat(receiver.received("/rebinding")).isEmpty();
        assertThat(d.get("last_error").asText()).matches("(cannot reach the endpoint|no answer within).*");
        tenant.http().send("DELETE", "/v1/webhooks/" + id, null, null);
    }

    @Test
    void aTargetThatTurnsPrivateIsNotSentToAtDelivery() {
        // what a DNS rebinding does: the name checked at creation now leads to loopback
        String id = endpointNowAt(receiver.url("/rebound"));
        JsonNode d = firstAttemptOfATest(id);
        assertThat(d.get("last_error").asText()).startsWith("not sent:").contains("127.0.0.1").contains("loopback");
        assertThat(d.get("last_status_code").isNull()).isTrue();
        assertThat(d.get("status").asText()).isEqualTo("pending"); // retried later: the name may be public again
        assertThat(receiver.received("/rebound")).isEmpty();
        tenant.http().send("DELETE", "/v1/webhooks/" + id, null, null); // no retry to anywhere after this test
    }

    @Test
    void listPagesNewestFirstAndOnlyTheAccountsOwn() {
        TestServer.Tenant own = server.tenant(Tier.TEAM);
        List<String> created = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            created.add(create(own.http(), "{\"url\":\"" + PUBLIC + "/" + i + "\",\"events\":[\"*\"]}").json().at("/data/id").asText());
        }
        List<String> seen = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            var r = own.http().get("/v1/webhooks?limit=2" + (cursor == null ? "" : "&cursor=" + cursor));
            assertThat(r.status()).isEqualTo(200);
            r.json().get("data").forEach(n -> seen.add(n.get("id").asText()));
            cursor = r.json().at("/pagination/has_more").asBoolean() ? r.json().at("/pagination/next_cursor").asText() : null;
            pages++;
        } while (cursor != null);
        assertThat(pages).isEqualTo(3);
        assertThat(seen).containsExactlyElementsOf(created.reversed());
        assertThat(own.http().get("/v1/webhooks?limit=0").status()).isEqualTo(400);

        // another account sees none of them and may touch none
        TestServer.Tenant other = server.tenant(Tier.TEAM);
        assertThat(other.http().get("/v1/webhooks").json().get("data")).isEmpty();
        String id = created.get(0);
        assertThat(other.http().get("/v1/webhooks/" + id).status()).isEqualTo(403);
        assertThat(patch(other.http(), "/v1/webhooks/" + id, "{\"enabled\":false}").status()).isEqualTo(403);
        assertThat(other.http().send("DELETE", "/v1/webhooks/" + id, null, null).status()).isEqualTo(403);
        assertThat(other.http().post("/v1/webhooks/" + id + "/rotate-secret", "").status()).isEqualTo(403);
        assertThat(other.http().get("/v1/webhooks/" + id + "/deliveries").status()).isEqualTo(403);
        assertThat(other.http().get("/v1/webhooks/wh_nothere").status()).isEqualTo(404);
        assertThat(server.anonymous().get("/v1/webhooks").status()).isEqualTo(401);
    }

    @Test
    void patchChangesEventsUrlAndStateAndDeleteRemovesIt() {
        String id = create(tenant.http(), "{\"url\":\"" + PUBLIC + "\",\"events\":[\"deployment.live\"],\"description\":\"a\"}")
                .json().at("/data/id").asText();
        var r = patch(tenant.http(), "/v1/webhooks/" + id,
                "{\"events\":[\"migration.complete\",\"*\"],\"url\":\"http://93.184.215.14/v2\",\"description\":null}");
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        JsonNode d = r.json().get("data");
        assertThat(d.get("events").toString()).isEqualTo("[\"*\"]");
        assertThat(d.get("url").asText()).isEqualTo("http://93.184.215.14/v2");
        assertThat(d.get("description").isNull()).isTrue();
        d = patch(tenant.http(), "/v1/webhooks/" + id, "{\"enabled\":false}").json().get("data");
        assertThat(d.get("enabled").asBoolean()).isFalse();
        assertThat(d.get("disabled_reason").asText()).isEqualTo("disabled by the API");
        assertThat(tenant.http().post("/v1/webhooks/" + id + "/test", "").status()).isEqualTo(409);
        d = patch(tenant.http(), "/v1/webhooks/" + id, "{\"enabled\":true}").json().get("data");
        assertThat(d.get("enabled").asBoolean()).isTrue();
        assertThat(d.get("disabled_reason").isNull()).isTrue();

        var rotated = tenant.http().post("/v1/webhooks/" + id + "/rotate-secret", "");
        assertThat(rotated.status()).isEqualTo(200);
        assertThat(rotated.json().at("/data/secret").asText()).startsWith("whsec_");
        assertThat(tenant.http().get("/v1/webhooks/" + id).json().at("/data/previous_secret_expires_at").isNull()).isFalse();
        assertThat(tenant.http().get("/v1/webhooks/" + id).body()).doesNotContain(rotated.json().at("/data/secret").asText().substring(6));

        assertThat(tenant.http().send("DELETE", "/v1/webhooks/" + id, null, null).status()).isEqualTo(204);
        assertThat(tenant.http().get("/v1/webhooks/" + id).status()).isEqualTo(404);
        assertThat(tenant.http().send("DELETE", "/v1/webhooks/" + id, null, null).status()).isEqualTo(404);
    }

    @Test
    void theGuardKnowsItsRanges() throws Exception {
        Set<String> publicOnes = new HashSet<>();
        for (String a : List.of("93.184.215.14", "8.8.8.8", "2606:4700::1111", "1.1.1.1", "172.32.0.1", "100.128.0.1")) {
            if (AddressGuard.forbidden(InetAddress.getByName(a)) == null) publicOnes.add(a);
        }
        assertThat(publicOnes).containsExactlyInAnyOrder("93.184.215.14", "8.8.8.8", "2606:4700::1111", "1.1.1.1",
                "172.32.0.1", "100.128.0.1");
        for (String a : List.of("127.0.0.2", "10.0.0.1", "172.31.255.255", "192.168.0.1", "169.254.1.1", "0.0.0.0",
                "::", "::1", "fc00::1", "fe80::1", "ff02::1", "::ffff:10.0.0.1", "::ffff:169.254.169.254", "64:ff9b::7f00:1",
                "::7f00:1", "240.0.0.1", "255.255.255.255")) {
            assertThat(AddressGuard.forbidden(InetAddress.getByName(a))).as(a).isNotNull();
        }
    }
}
