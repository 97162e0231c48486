package dev.slipway.domains;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.testing.Apps;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.ServerPerStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code --domain-verification=off}: a single-team install serves a custom domain at once; the address rules stay. */
@EachStore
class DomainVerificationOffTest {
    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.start(c -> c.domainProof(false));

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
