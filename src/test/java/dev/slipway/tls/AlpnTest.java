package dev.slipway.tls;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.server.Slipway;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Await;
import dev.slipway.testing.EachStore;
import java.time.Clock;
import org.junit.jupiter.api.Test;

import javax.net.ssl.SSLException;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * TLS-ALPN-01 (RFC 8737) against Pebble: with {@code SLIPWAY_ACME_CHALLENGE=tls-alpn-01} a custom domain gets
 * its certificate through the HTTPS listener alone (Pebble's HTTP-01 port is one nobody listens on), and the
 * listener hands a challenge certificate to nobody else: not for a made-up name, not once the challenge is over.
 */
@EachStore
class AlpnTest {
    private static final Duration ISSUE = Duration.ofSeconds(40);

    private final Dialect kind;

    AlpnTest(Dialect kind) {
        this.kind = kind;
    }

    @Test
    void aCertificateIsIssuedByTlsAlpn01AndNoChallengeCertificateIsHandedToAnyoneElse() throws Exception {
        try (Rig rig = Rig.start(kind, true)) {
            Slipway server = rig.server();
            assertThat(server.appsHttpsPort()).isEqualTo(rig.httpsPort);
            var owner = Rig.tenant(server, Tier.TEAM);
            var created = owner.http().post("/v1/projects", """
                    {"name":"alpn-shop","source":"github","repo":"acme/alpn-shop","domain":"alpn.example.test"}""");
            assertThat(created.status()).as(created.body()).isEqualTo(201);
            String projectId = created.json().at("/data/id").asText();
            Rig.route(server, "alpn-shop", "alpn.example.test", "served after tls-alpn-01");

            JsonNode cert = Await.value(ISSUE, "the certificate of alpn.example.test", () -> {
                JsonNode c = owner.http().get("/v1/projects/" + projectId).json().at("/data/certificate");
                assertThat(c.path("status").asText()).as(c + "\n" + rig.pebble.log()).isNotEqualTo("failed");
                return c.path("status").asText().equals("issued") ? c : null;
            });
            assertThat(cert.get("last_error").isNull()).isTrue();
            // issued, though nothing listens where Pebble would fetch an HTTP-01 answer: the HTTPS listener proved it
            Rig.awaitServed(server, "alpn.example.test", ISSUE);

            // served by SNI with a chain that verifies against Pebble's root, to a client that offers no ALPN
            var page = new TlsClient(rig.pebble.root()).get(server.appsHttpsPort(), "alpn.example.test", "/");
            assertThat(page.status()).isEqualTo(200);
            assertThat(page.body()).contains("served after tls-alpn-01");
            // a browser offering h2 and http/1.1 is served HTTP/1.1 without ALPN, as before
            assertThat(TlsClient.probe(server.appsHttpsPort(), "alpn.example.test", "h2", "http/1.1").protocol()).isEmpty();

            // nothing left in flight, and the challenge keys never reach the HTTP-01 answers
            int inFlight = server.database().jdbi().withHandle(h -> h.createQuery("SELECT COUNT(*) FROM acme_challenges")
                    .mapTo(Integer.class).one());
            assertThat(inFlight).isZero();

            // hostile handshakes asking for a challenge certificate get none
            assertThatThrownBy(() -> TlsClient.probe(server.appsHttpsPort(), "alpn.example.test", AlpnChallenges.PROTOCOL))
                    .as("no challenge in flight for the domain").isInstanceOf(SSLException.class);
            assertThatThrownBy(() -> TlsClient.probe(server.appsHttpsPort(), "made-up.example.test", AlpnChallenges.PROTOCOL))
                    .as("a name no project holds").isInstanceOf(SSLException.class);
            // a challenge in flight for one domain is no certificate for another
            String keyAuthorization = "tok.thumbprint";
            server.stores().certificates().putChallenge(CertificateStore.alpnToken(keyAuthorization), "alpn.example.test", keyAuthorization);
            var challenge = TlsClient.probe(server.appsHttpsPort(), "alpn.example.test", AlpnChallenges.PROTOCOL);
            assertThat(challenge.protocol()).isEqualTo(AlpnChallenges.PROTOCOL);
            assertThat(challenge.leaf().getSubjectAlternativeNames()).singleElement().satisfies(san -> assertThat(san.get(1)).isEqualTo("alpn.example.test"));
            assertThat(challenge.leaf().getCriticalExtensionOIDs()).contains("1.3.6.1.5.5.7.1.31"); // id-pe-acmeIdentifier
            assertThatThrownBy(() -> TlsClient.probe(server.appsHttpsPort(), "made-up.example.test", AlpnChallenges.PROTOCOL))
                    .isInstanceOf(SSLException.class);
        }
    }

    /**
     * The server the CA reaches may not have run its own certificate check since the domain was set (its checks
     * are an hour apart here). On PostgreSQL another server orders, and the challenge is answered by the first all
     * the same, which knows the domain from the change feed; on the embedded store (one server) a route the
     * server serves is enough.
     */
    @Test
    void theServerTheCaReachesAnswersBeforeItsOwnCheckRan() throws Exception {
        try (Rig rig = Rig.start(kind, true)) {
            Slipway edge = rig.server(Clock.systemUTC(), c -> c.tls(rig.tls().withHttpsPort(rig.httpsPort)
                    .withTimings(Duration.ofDays(30), Duration.ofSeconds(1), Duration.ofSeconds(30), Duration.ofHours(1))));
            Await.until(ISSUE, "the edge's first certificate check", () -> edge.tls().passes() >= 1);
            if (kind == Dialect.POSTGRES) {
                Slipway orderer = rig.server();
                var owner = Rig.tenant(orderer, Tier.TEAM);
                var created = owner.http().post("/v1/projects", """
                        {"name":"feed-shop","source":"github","repo":"acme/feed-shop","domain":"feed.example.test"}""");
                assertThat(created.status()).as(created.body()).isEqualTo(201);
                String projectId = created.json().at("/data/id").asText();
                JsonNode cert = Await.value(ISSUE, "the certificate of feed.example.test", () -> {
                    JsonNode c = owner.http().get("/v1/projects/" + projectId).json().at("/data/certificate");
                    assertThat(c.path("status").asText()).as(c + "\n" + rig.pebble.log()).isNotEqualTo("failed");
                    return c.path("status").asText().equals("issued") ? c : null;
                });
                assertThat(cert.get("last_error").isNull()).isTrue();
                assertThat(edge.tls().passes()).as("the edge ran no check since the domain was set").isEqualTo(1);
            } else {
                var owner = Rig.tenant(edge, Tier.TEAM);
                var created = owner.http().post("/v1/projects", """
                        {"name":"route-shop","source":"github","repo":"acme/route-shop","domain":"route.example.test"}""");
                assertThat(created.status()).as(created.body()).isEqualTo(201);
                Rig.route(edge, "route-shop", "route.example.test", "deployed");
                String keyAuthorization = "tok.thumbprint";
                edge.stores().certificates().putChallenge(CertificateStore.alpnToken(keyAuthorization), "route.example.test", keyAuthorization);
                var challenge = TlsClient.probe(edge.appsHttpsPort(), "route.example.test", AlpnChallenges.PROTOCOL);
                assertThat(challenge.protocol()).isEqualTo(AlpnChallenges.PROTOCOL);
                assertThat(edge.tls().passes()).isEqualTo(1);
            }
        }
    }
}
