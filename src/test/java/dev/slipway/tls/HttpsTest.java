package dev.slipway.tls;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.server.Slipway;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Await;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.MutableClock;
import dev.slipway.testing.TestServer;
import dev.slipway.testing.WebhookReceiver;
import java.net.CookieManager;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

import javax.net.ssl.SSLHandshakeException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Automatic HTTPS end to end against a real ACME CA (Debian's Pebble) on loopback: a project's custom domain
 * gets a certificate by HTTP-01 answered by the apps listener, the HTTPS listener serves it by SNI with a chain
 * that verifies against Pebble's root, plain HTTP is redirected, renewal happens early, a validation that cannot
 * succeed fails cleanly with backoff, and the certificate outlives a restart and is served by a second server.
 */
@EachStore
@EndToEnd
class HttpsTest {
    private static final Duration ISSUE = Duration.ofSeconds(40);
    private static final HttpClient PLAIN = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER).connectTimeout(Duration.ofSeconds(5)).build();

    private final Dialect kind;

    HttpsTest(Dialect kind) {
        this.kind = kind;
    }

    @Test
    void aCustomDomainGetsACertificateServedBySniRedirectedFromHttpAndKeptAcrossRestartsAndServers() throws Exception {
        try (Rig rig = Rig.start(kind); WebhookReceiver hooks = WebhookReceiver.start()) {
            Slipway server = rig.server();
            var owner = Rig.tenant(server, Tier.TEAM);
            var other = Rig.tenant(server, Tier.TEAM);
            assertThat(owner.http().post("/v1/webhooks", "{\"url\":\"" + hooks.url("/owner") + "\",\"events\":[\"certificate.issued\"]}").status()).isEqualTo(201);
            assertThat(other.http().post("/v1/webhooks", "{\"url\":\"" + hooks.url("/other") + "\",\"events\":[\"*\"]}").status()).isEqualTo(201);

            long createdNanos = System.nanoTime();
            var created = owner.http().post("/v1/projects", """
                    {"name":"shop","source":"github","repo":"acme/shop","domain":"Shop.Example.test","hsts":true}""");
            assertThat(created.status()).isEqualTo(201);
            assertThat(created.json().at("/data/hsts").asBoolean()).isTrue();
            String projectId = created.json().at("/data/id").asText();
            var plain = other.http().post("/v1/projects", """
                    {"name":"plain","source":"github","repo":"acme/plain","domain":"plain.example.test"}""");
            assertThat(plain.json().at("/data/hsts").asBoolean()).isFalse();
            Rig.route(server, "shop", "shop.example.test", "the shop over https");
            Rig.route(server, "plain", "plain.example.test", "plain page");

            JsonNode cert = awaitCertificate(owner.http(), projectId, "issued");
            awaitServed(server, "shop.example.test");
            long issueMillis = (System.nanoTime() - createdNanos) / 1_000_000;
            assertThat(cert.get("last_error").isNull()).isTrue();
            Instant expires = Instant.parse(cert.get("expires_at").asText());
            assertThat(expires).isAfter(Instant.now().plus(Duration.ofDays(30)));

            // HTTPS by SNI: the chain verifies against Pebble's root only, and names the domain
            X509Certificate root = rig.pebble.root();
            TlsClient tls = new TlsClient(root);
            var page = tls.get(server.appsHttpsPort(), "shop.example.test", "/");
            assertThat(page.status()).isEqualTo(200);
            assertThat(page.body()).contains("the shop over https");
            assertThat(page.chain().getFirst().getSubjectAlternativeNames()).anySatisfy(san -> assertThat(san.get(1)).isEqualTo("shop.example.test"));
            assertThat(page.chain().getFirst().getNotAfter().toInstant()).isEqualTo(expires.truncatedTo(ChronoUnit.SECONDS));
            assertThat(page.header("strict-transport-security")).isEqualTo(EdgeHandler.HSTS_VALUE);
            String serial = page.chain().getFirst().getSerialNumber().toString(16);
            long t0 = System.nanoTime();
            for (int i = 0; i < 50; i++) assertThat(tls.get(server.appsHttpsPort(), "shop.example.test", "/").status()).isEqualTo(200);
            System.out.printf("[measure %s] project created → certificate issued by Pebble: %d ms; new TLS connection + GET over "
                    + "the HTTPS listener: %.1f ms each (50 in a row)%n", kind, issueMillis, (System.nanoTime() - t0) / 50 / 1e6);
            assertThat(dashboard(server, owner.account().id(), "/dashboard/projects/" + projectId).body())
                    .contains("data-certificate=\"issued\"").contains("<dt>HSTS</dt><dd>on</dd>").doesNotContain("BEGIN");

            // plain HTTP to a host with a certificate: 308 to the same path on HTTPS
            var redirect = http(rig.appsPort, "shop.example.test", "/cart?item=1");
            assertThat(redirect.statusCode()).isEqualTo(308);
            assertThat(redirect.headers().firstValue("Location")).hasValue(
                    "https://shop.example.test:" + server.appsHttpsPort() + "/cart?item=1");

            // the other tenant's domain got its own certificate; no HSTS there (not opted in)
            Rig.awaitServed(server, "plain.example.test", ISSUE);
            var otherPage = tls.get(server.appsHttpsPort(), "plain.example.test", "/");
            assertThat(otherPage.body()).contains("plain page");
            assertThat(otherPage.header("strict-transport-security")).isNull();

            // challenge answers: only the token issued for that host, never redirected, nothing for anyone else
            server.stores().certificates().putChallenge("tok-en_1", "shop.example.test", "tok-en_1.thumb");
            var answer = http(rig.appsPort, "shop.example.test", "/.well-known/acme-challenge/tok-en_1");
            assertThat(answer.statusCode()).isEqualTo(200);
            assertThat(answer.body()).isEqualTo("tok-en_1.thumb");
            assertThat(http(rig.appsPort, "plain.example.test", "/.well-known/acme-challenge/tok-en_1").statusCode()).isEqualTo(404);
            // an encoded path separator is refused by Jetty before it gets here (400); nothing is answered either way
            var traversal = http(rig.appsPort, "shop.example.test", "/.well-known/acme-challenge/..%2f..%2fetc");
            assertThat(traversal.statusCode()).isIn(400, 404);
            assertThat(traversal.body()).doesNotContain("tok-en_1").doesNotContain("root:");
            assertThat(http(rig.appsPort, "shop.example.test", "/.well-known/acme-challenge/%27%20OR%201%3D1").statusCode()).isEqualTo(404);
            server.stores().certificates().removeChallenge("tok-en_1");

            // a host nobody has a certificate for: no redirect, and no certificate handed out over HTTPS
            assertThat(http(rig.appsPort, "nothing.example.test", "/").statusCode()).isEqualTo(404);
            assertThatThrownBy(() -> tls.get(server.appsHttpsPort(), "nothing.example.test", "/")).isInstanceOf(SSLHandshakeException.class);

            // the webhook event goes to the owner only; the other tenant never sees the owner's certificate
            var issued = hooks.await(Duration.ofSeconds(10), "certificate.issued for the owner",
                    r -> r.type().equals("certificate.issued") && r.json().at("/data/domain").asText().equals("shop.example.test"));
            assertThat(issued.json().at("/data/project_id").asText()).isEqualTo(projectId);
            assertThat(issued.json().at("/data/status").asText()).isEqualTo("issued");
            assertThat(issued.body()).doesNotContain("PRIVATE KEY").doesNotContain("BEGIN");
            assertThat(hooks.received("/other")).noneMatch(r -> r.body().contains("shop.example.test"));

            // sealed at rest: neither the key nor the chain is readable in the store
            List<String> sealed = server.database().jdbi().withHandle(h -> h.createQuery(
                    "SELECT key_enc || chain_enc FROM certificates UNION ALL SELECT key_enc FROM acme_accounts").mapTo(String.class).list());
            assertThat(sealed).hasSize(3).allSatisfy(s -> assertThat(s).startsWith("v1:").doesNotContain("BEGIN"));
            assertThat(owner.http().get("/v1/projects/" + projectId).body()).doesNotContain("BEGIN").doesNotContain("v1:");

            // a restart issues nothing: the same certificate is served from the store
            Rig.route(server, "shop", "shop.example.test", "the shop over https");
            rig.stop(server);
            Slipway restarted = rig.server();
            Rig.route(restarted, "shop", "shop.example.test", "the shop after a restart");
            var again = Await.value(Duration.ofSeconds(10), "the restarted server serves the certificate", () -> {
                try {
                    var r = tls.get(restarted.appsHttpsPort(), "shop.example.test", "/");
                    return r.body().contains("the shop after a restart") ? r : null; // its route reaches its edge after its recovery
                } catch (Exception e) {
                    return null;
                }
            });
            assertThat(again.body()).contains("the shop after a restart");
            assertThat(again.chain().getFirst().getSerialNumber().toString(16)).isEqualTo(serial);
            long passes = restarted.tls().passes();
            Await.until(Duration.ofSeconds(10), "three check passes of the restarted server", () -> restarted.tls().passes() >= passes + 3);
            assertThat(storedSerial(restarted, "shop.example.test")).isEqualTo(serial);

            if (kind == Dialect.POSTGRES) {
                // a second server on the same PostgreSQL serves the same certificate and orders nothing
                Slipway peer = rig.server();
                Rig.route(peer, "shop", "shop.example.test", "the shop on the peer");
                var fromPeer = Await.value(Duration.ofSeconds(10), "the peer serves the certificate", () -> {
                    try {
                        var r = tls.get(peer.appsHttpsPort(), "shop.example.test", "/");
                        return r.body().contains("the shop on the peer") ? r : null;
                    } catch (Exception e) {
                        return null;
                    }
                });
                assertThat(fromPeer.body()).contains("the shop on the peer");
                assertThat(fromPeer.chain().getFirst().getSerialNumber().toString(16)).isEqualTo(serial);
                long peerPasses = peer.tls().passes();
                Await.until(Duration.ofSeconds(10), "three check passes of the peer", () -> peer.tls().passes() >= peerPasses + 3);
                assertThat(storedSerial(peer, "shop.example.test")).isEqualTo(serial);
            }
            assertThat(hooks.received("/owner").stream().filter(r -> r.type().equals("certificate.issued")
                    && r.body().contains("shop.example.test")).count()).isEqualTo(1);
        }
    }

    @Test
    void aCertificateInsideTheRenewalWindowIsRenewedEarlyWithANewSerial() throws Exception {
        try (Rig rig = Rig.start(kind)) {
            MutableClock clock = new MutableClock();
            Slipway server = rig.server(clock, c -> c);
            var owner = Rig.tenant(server, Tier.TEAM);
            String id = owner.http().post("/v1/projects", """
                    {"name":"renew","source":"github","repo":"acme/renew","domain":"renew.example.test"}""").json().at("/data/id").asText();
            Rig.route(server, "renew", "renew.example.test", "renewing");
            JsonNode first = awaitCertificate(owner.http(), id, "issued");
            awaitServed(server, "renew.example.test");
            X509Certificate root = rig.pebble.root();
            String serial = new TlsClient(root).get(server.appsHttpsPort(), "renew.example.test", "/").chain().getFirst()
                    .getSerialNumber().toString(16);

            // 29 days before it expires it is inside the 30-day window
            Instant expires = Instant.parse(first.get("expires_at").asText());
            clock.advance(Duration.between(clock.instant(), expires.minus(Duration.ofDays(29))));
            String renewed = Await.value(ISSUE, "a renewed certificate is served", () -> {
                try {
                    String s = new TlsClient(root).get(server.appsHttpsPort(), "renew.example.test", "/").chain().getFirst()
                            .getSerialNumber().toString(16);
                    // the one served is the one stored (a renewal may follow another while the test clock sits in the window)
                    return s.equals(serial) || !s.equals(storedSerial(server, "renew.example.test")) ? null : s;
                } catch (Exception e) {
                    return null;
                }
            });
            assertThat(renewed).isNotEqualTo(serial);
            assertThat(storedSerial(server, "renew.example.test")).isEqualTo(renewed);
            assertThat(owner.http().get("/v1/projects/" + id).json().at("/data/certificate/status").asText()).isEqualTo("issued");
        }
    }

    @Test
    void aDomainTakenOffItsProjectIsNoLongerServedAndItsCertificateIsDeleted() throws Exception {
        try (Rig rig = Rig.start(kind)) {
            Slipway server = rig.server();
            var owner = Rig.tenant(server, Tier.TEAM);
            String id = owner.http().post("/v1/projects", """
                    {"name":"moving","source":"github","repo":"acme/moving","domain":"old.example.test"}""").json().at("/data/id").asText();
            Rig.route(server, "moving", "old.example.test", "moving page");
            awaitCertificate(owner.http(), id, "issued");
            awaitServed(server, "old.example.test");
            X509Certificate root = rig.pebble.root();
            assertThat(new TlsClient(root).get(server.appsHttpsPort(), "old.example.test", "/").status()).isEqualTo(200);

            var put = owner.http().send("PUT", "/v1/projects/" + id + "/domain", "application/json",
                    "{\"domain\":\"new.example.test\"}".getBytes(StandardCharsets.UTF_8));
            assertThat(put.status()).as(put.body()).isEqualTo(200);
            Rig.route(server, "moving", "new.example.test", "moving page");
            awaitCertificate(owner.http(), id, "issued");
            awaitServed(server, "new.example.test");

            // the old domain's certificate is neither served nor kept (its sealed key goes with it)
            Await.until(ISSUE, "old.example.test's certificate deleted", () -> server.database().jdbi().withHandle(h -> h.createQuery(
                    "SELECT COUNT(*) FROM certificates WHERE domain = 'old.example.test'").mapTo(Integer.class).one()) == 0);
            Rig.awaitNotServed(server, "old.example.test", Duration.ofSeconds(10));
            assertThatThrownBy(() -> new TlsClient(root).get(server.appsHttpsPort(), "old.example.test", "/"))
                    .isInstanceOf(SSLHandshakeException.class);
            assertThat(new TlsClient(root).get(server.appsHttpsPort(), "new.example.test", "/").body()).contains("moving page");
            assertThat(storedSerial(server, "new.example.test")).isNotBlank();
        }
    }

    @Test
    void aValidationThatCannotSucceedFailsCleanlyWithTheReasonBacksOffAndTellsTheOwner() throws Exception {
        try (Rig rig = Rig.start(kind); WebhookReceiver hooks = WebhookReceiver.start()) {
            rig.dns.answer("down.example.test", "127.0.0.2"); // nothing of ours listens there
            Slipway server = rig.server();
            var owner = Rig.tenant(server, Tier.TEAM);
            assertThat(owner.http().post("/v1/webhooks", "{\"url\":\"" + hooks.url("/h") + "\",\"events\":[\"certificate.failed\"]}").status()).isEqualTo(201);
            String id = owner.http().post("/v1/projects", """
                    {"name":"down","source":"github","repo":"acme/down","domain":"down.example.test"}""").json().at("/data/id").asText();
            Rig.route(server, "down", "down.example.test", "still served over http");

            JsonNode failed = awaitCertificate(owner.http(), id, "failed");
            assertThat(failed.get("last_error").asText()).contains("down.example.test").containsIgnoringCase("127.0.0.2");
            assertThat(failed.get("expires_at").isNull()).isTrue();

            // the dashboard's project page says it too, to the owner only
            String pageHtml = dashboard(server, owner.account().id(), "/dashboard/projects/" + id).body();
            assertThat(pageHtml).contains("data-certificate=\"failed\"").contains("127.0.0.2");
            var stranger = Rig.tenant(server, Tier.TEAM);
            var strangers = dashboard(server, stranger.account().id(), "/dashboard/projects/" + id);
            assertThat(strangers.statusCode()).isEqualTo(404);
            assertThat(strangers.body()).doesNotContain("127.0.0.2").doesNotContain("down.example.test");

            var event = hooks.await(Duration.ofSeconds(10), "certificate.failed", r -> r.type().equals("certificate.failed"));
            assertThat(event.json().at("/data/domain").asText()).isEqualTo("down.example.test");
            assertThat(event.json().at("/data/last_error").asText()).contains("127.0.0.2");

            // the delays double: 1 s after the first failure, 2 s after the second
            Await.until(Duration.ofSeconds(20), "a second failed attempt", () -> attempts(server, "down.example.test") >= 2);
            var delays = server.database().jdbi().withHandle(h -> h.createQuery(
                    "SELECT attempts, next_attempt_at, updated_at FROM certificates WHERE domain = 'down.example.test'")
                    .map((rs, ctx) -> new long[]{rs.getInt(1), Duration.between(rs.getTimestamp(3).toInstant(),
                            rs.getTimestamp(2).toInstant()).toMillis()}).one());
            assertThat(delays[1]).isEqualTo(Duration.ofSeconds(1).multipliedBy(1L << (delays[0] - 1)).toMillis());

            // nothing to serve: no redirect, the app stays on plain HTTP, and the handshake finds no certificate
            var page = http(rig.appsPort, "down.example.test", "/");
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.body()).contains("still served over http");
            assertThatThrownBy(() -> new TlsClient(rig.pebble.root()).get(server.appsHttpsPort(), "down.example.test", "/"))
                    .isInstanceOf(SSLHandshakeException.class);
        }
    }

    @Test
    void aDomainWhoseControlIsNotProvenGetsNoCertificate() throws Exception {
        try (Rig rig = Rig.start(kind)) {
            Slipway server = rig.server(Clock.systemUTC(), c -> c.domainProof(true));
            var claimant = Rig.tenant(server, Tier.TEAM);
            String id = claimant.http().post("/v1/projects", """
                    {"name":"claim","source":"github","repo":"acme/claim","domain":"bank.example.test"}""").json().at("/data/id").asText();
            long passes = server.tls().passes();
            Await.until(Duration.ofSeconds(10), "three certificate passes", () -> server.tls().passes() >= passes + 3);
            var view = claimant.http().get("/v1/projects/" + id).json().at("/data");
            assertThat(view.get("domain_status").asText()).isEqualTo("pending_verification");
            assertThat(view.get("certificate").isNull()).isTrue();
            int rows = server.database().jdbi().withHandle(h -> h.createQuery("SELECT COUNT(*) FROM certificates")
                    .mapTo(Integer.class).one());
            assertThat(rows).isZero();
            assertThat(rig.pebble.log()).doesNotContain("order-plz");
        }
    }

    @Test
    void hstsMustBeABoolean() throws Exception {
        try (TestServer server = TestServer.start(kind)) {
            var owner = server.tenant(Tier.TEAM);
            var r = owner.http().post("/v1/projects", """
                    {"name":"bad","source":"github","repo":"acme/bad","hsts":"yes"}""");
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.json().at("/error/code").asText()).isEqualTo("invalid_request");
            assertThat(r.json().at("/error/details/hsts").asText()).contains("true or false");
            var ok = owner.http().post("/v1/projects", """
                    {"name":"good","source":"github","repo":"acme/good","domain":"good.example.test"}""");
            assertThat(ok.json().at("/data/hsts").asBoolean()).isFalse();
            // HTTPS off: no certificate is wanted, none shown
            assertThat(ok.json().at("/data/certificate").isNull()).isTrue();
            assertThat(server.slipway().appsHttpsPort()).isNull();
        }
    }

    private static JsonNode awaitCertificate(Http http, String projectId, String status) {
        return Await.value(ISSUE, "certificate " + status + " for " + projectId, () -> {
            JsonNode c = http.get("/v1/projects/" + projectId).json().at("/data/certificate");
            return c.isObject() && c.get("status").asText().equals(status) ? c : null;
        });
    }

    /**
     * The API shows "issued" once the store has the certificate; this server loads it into its listener right
     * after (another server at its next check), so a handshake in between finds none.
     */
    private static void awaitServed(Slipway server, String domain) {
        Rig.awaitServed(server, domain, ISSUE);
    }

    private static String storedSerial(Slipway s, String domain) {
        return s.database().jdbi().withHandle(h -> h.createQuery("SELECT serial FROM certificates WHERE domain = :d")
                .bind("d", domain).mapTo(String.class).one());
    }

    private static int attempts(Slipway s, String domain) {
        return s.database().jdbi().withHandle(h -> h.createQuery("SELECT attempts FROM certificates WHERE domain = :d")
                .bind("d", domain).mapTo(Integer.class).one());
    }

    /** A dashboard page as a user of the account sees it, signed in through the form. */
    private static HttpResponse<String> dashboard(Slipway s, String accountId, String path) throws Exception {
        String email = "u-" + UUID.randomUUID().toString().substring(0, 8) + "@example.test";
        s.users().create(accountId, email, "a long enough password 1");
        HttpClient web = HttpClient.newBuilder().cookieHandler(new CookieManager())
                .followRedirects(HttpClient.Redirect.NEVER).build();
        String base = "http://127.0.0.1:" + s.apiPort();
        String form = web.send(HttpRequest.newBuilder(URI.create(base + "/dashboard/sign-in")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        var m = Pattern.compile("name=\"_csrf\" value=\"([^\"]+)\"").matcher(form);
        assertThat(m.find()).isTrue();
        String body = "_csrf=" + URLEncoder.encode(m.group(1), StandardCharsets.UTF_8)
                + "&email=" + URLEncoder.encode(email, StandardCharsets.UTF_8)
                + "&password=" + URLEncoder.encode("a long enough password 1", StandardCharsets.UTF_8);
        var signedIn = web.send(HttpRequest.newBuilder(URI.create(base + "/dashboard/sign-in"))
                .header("Content-Type", "application/x-www-form-urlencoded").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(signedIn.statusCode()).isEqualTo(303);
        return web.send(HttpRequest.newBuilder(URI.create(base + path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> http(int port, String host, String path) throws Exception {
        return PLAIN.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).header("Host", host)
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
