package dev.slipway.domains;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.testing.Apps;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.ServerPerStore;
import dev.slipway.testing.WebhookReceiver;
import dev.slipway.webhooks.WebhookSettings;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code --domain-verification=off}: a single-team install serves a custom domain at once; the address rules stay. */
@EachStore
@EndToEnd
class DomainVerificationOffTest {
    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.start(c -> c.domainProof(false)
            .webhooks(new WebhookSettings(true, List.of(Duration.ofMillis(300)))));

    @Test
    void aDomainVerifiedAtOnceIsToldAsAProofWouldBe_onCreateAndOnChange() {
        var a = server.tenant(Tier.TEAM).http();
        try (WebhookReceiver receiver = WebhookReceiver.start()) {
            var hook = a.post("/v1/webhooks", "{\"url\":\"" + receiver.url("/hooks") + "\",\"events\":[\"domain.verified\"]}");
            assertThat(hook.status()).as(hook.body()).isEqualTo(201);
            String domain = Sites.unique("told") + ".example.test";
            var created = a.post("/v1/projects", "{\"source\":\"zip\",\"domain\":\"" + domain + "\"}");
            assertThat(created.status()).as(created.body()).isEqualTo(201);
            String id = created.json().at("/data/id").asText();
            var first = receiver.await(Duration.ofSeconds(20), "domain.verified for " + domain,
                    r -> r.type().equals("domain.verified") && r.json().at("/data/domain").asText().equals(domain));
            assertThat(first.json().at("/data/id").asText()).isEqualTo(id);
            assertThat(first.json().at("/data/domain_status").asText()).isEqualTo("verified");

            String moved = Sites.unique("moved") + ".example.test";
            var put = a.send("PUT", "/v1/projects/" + id + "/domain", "application/json",
                    ("{\"domain\":\"" + moved + "\"}").getBytes(StandardCharsets.UTF_8));
            assertThat(put.status()).as(put.body()).isEqualTo(200);
            receiver.await(Duration.ofSeconds(20), "domain.verified for " + moved,
                    r -> r.type().equals("domain.verified") && r.json().at("/data/domain").asText().equals(moved));
            // removing the domain is no verification
            var removed = a.send("PUT", "/v1/projects/" + id + "/domain", "application/json",
                    "{\"domain\":null}".getBytes(StandardCharsets.UTF_8));
            assertThat(removed.status()).as(removed.body()).isEqualTo(200);
            assertThat(receiver.received().stream().filter(r -> r.type().equals("domain.verified"))).hasSize(2);
        }
    }

    @Test
    void aDomainIsVerifiedAndServedAtOnce() {
        var a = server.tenant(Tier.TEAM).http();
        String domain = Sites.unique("team") + ".example.test";
        JsonNode p = Sites.migrate(a, Sites.unique("t"), domain, "team-site");
        assertThat(p.get("domain_status").asText()).isEqualTo("verified");
        var served = Apps.get("http://" + domain + ":" + server.slipway().appsPort() + "/");
        assertThat(served.status()).isEqualTo(200);
        assertThat(served.body()).contains("team-site");
        assertThat(server.slipway().projects().verifiedDomains()).contains(domain);

        // still never under the apps domain
        var r = a.post("/v1/projects", "{\"source\":\"zip\",\"domain\":\"team.localhost\"}");
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.json().at("/error/details/domain").asText()).contains("apps domain");
    }
}
