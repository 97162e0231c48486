package dev.slipway.domains;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.projects.NewProject;
import dev.slipway.server.Slipway;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Apps;
import dev.slipway.testing.Await;
import dev.slipway.testing.DnsServer;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.ServerPerStore;
import dev.slipway.testing.Statuses;
import dev.slipway.testing.TestServer;
import dev.slipway.testing.WebhookReceiver;
import dev.slipway.webhooks.WebhookSettings;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The address rules and proof of control, through the API and the apps listener, with the server's DNS
 * pointed at a DNS server of the test's on loopback. Every hostile attempt is made from another account and
 * must get nothing.
 */
@EachStore
@EndToEnd
class DomainVerificationTest {
    static final DnsServer dns = DnsServer.start();

    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.start(c -> c
            .webhooks(new WebhookSettings(true, List.of(Duration.ofMillis(300))))
            .domains(DomainSettings.DEFAULTS.withDnsServers(List.of(dns.address()))
                    .withDnsTimeout(Duration.ofSeconds(1)).withCheckInterval(Duration.ofMillis(300))));

    @AfterAll
    static void stopDns() {
        dns.close();
    }

    private static String app(String host) {
        return "http://" + host + ":" + server.slipway().appsPort() + "/";
    }

    private static Http.Response verify(Http http, String projectId) {
        return http.send("POST", "/v1/projects/" + projectId + "/domain/verify", null, null);
    }

    @Test
    void aDomainAtOrUnderTheAppsDomainIsRefusedEverywhere() {
        var a = server.tenant(Tier.TEAM).http();
        String upload = Sites.upload(a, "hijack");
        for (String domain : List.of("localhost", "app.localhost", "APP.LocalHost.", "x.y.localhost")) {
            for (var r : List.of(
                    a.post("/v1/projects", "{\"source\":\"zip\",\"domain\":\"" + domain + "\"}"),
                    a.post("/v1/migrations", "{\"source\":\"zip\",\"upload_id\":\"" + upload + "\",\"domain\":\"" + domain + "\"}"))) {
                assertThat(r.status()).as(domain + ": " + r.body()).isEqualTo(400);
                assertThat(r.json().at("/error/code").asText()).isEqualTo("invalid_request");
                assertThat(r.json().at("/error/request_id").asText()).isNotEmpty();
                assertThat(r.json().at("/error/details/domain").asText()).contains("apps domain (localhost)");
            }
        }
        assertThat(a.get("/v1/projects").json().get("data").size()).as("nothing was created").isZero();
        assertThat(a.get("/v1/migrations").json().get("data").size()).isZero();
        // and malformed hostnames stay a 400, never a 500
        for (String bad : List.of("exa mple.com", "аpp.example.com", "-a.example.com", "a..example.com", "x".repeat(254))) {
            var r = a.post("/v1/projects", "{\"source\":\"zip\",\"domain\":\"" + bad + "\"}");
            assertThat(r.status()).as(bad).isEqualTo(400);
            assertThat(r.json().at("/error/details/domain").isMissingNode()).as(r.body()).isFalse();
        }
    }

    @Test
    void aProjectNamedLikeAnotherAccountsDeploymentAddressCannotTakeItOver() {
        var b = server.tenant(Tier.TEAM).http();
        var a = server.tenant(Tier.TEAM).http();
        JsonNode victim = Sites.migrate(b, Sites.unique("b"), null, "b-production");
        String deployment = victim.get("production_deployment_id").asText();
        String label = victim.get("name").asText() + "-" + deployment.substring(deployment.length() - 8);
        assertThat(Apps.get(app(label + ".localhost")).body()).contains("b-production");

        // asked for by name: refused on both endpoints, with the rule named
        for (var r : List.of(
                a.post("/v1/projects", "{\"source\":\"zip\",\"name\":\"" + label + "\"}"),
                a.post("/v1/migrations", "{\"source\":\"zip\",\"upload_id\":\"" + Sites.upload(a, "a") + "\",\"name\":\"" + label + "\"}"))) {
            assertThat(r.status()).as(r.body()).isEqualTo(400);
            assertThat(r.json().at("/error/details/name").asText()).contains("address of a deployment");
        }
        // the other way round: a project whose deployment addresses another project's name would read as
        String prefix = Sites.unique("c");
        var shaped = b.post("/v1/projects", "{\"source\":\"zip\",\"name\":\"" + prefix + "-k3m9p2qa\"}");
        assertThat(shaped.status()).as(shaped.body()).isEqualTo(201);
        var shadowing = a.post("/v1/projects", "{\"source\":\"zip\",\"name\":\"" + prefix + "\"}");
        assertThat(shadowing.status()).as(shadowing.body()).isEqualTo(400);
        assertThat(shadowing.json().at("/error/details/name").asText()).contains(prefix + "-k3m9p2qa");

        // a name stored before the rule (made here straight in the store), deployed and live: the router still
        // gives the address to B's deployment, on a request and after a wake alike
        TestServer.Tenant legacyTenant = server.tenant(Tier.TEAM);
        String aAccount = legacyTenant.account().id();
        Http legacy = legacyTenant.http();
        var project = server.slipway().projects().create(new NewProject(aAccount, label, "zip", null, null, "static",
                "us-east-1", null, Map.of()));
        var d = legacy.post("/v1/deployments", "{\"project_id\":\"" + project.id() + "\",\"upload_id\":\""
                + Sites.upload(legacy, "a-takeover") + "\"}");
        assertThat(d.status()).as(d.body()).isEqualTo(201);
        Statuses.await(legacy, "deployments", d.json().at("/data/id").asText(), "live", Duration.ofSeconds(180));
        Http.Response served = Apps.get(app(label + ".localhost"));
        assertThat(served.status()).isEqualTo(200);
        assertThat(served.body()).contains("b-production").doesNotContain("a-takeover");
        assertThat(Apps.get(app(victim.get("name").asText() + ".localhost")).body()).contains("b-production");
    }

    @Test
    void anUnverifiedDomainIsNotServedUntilItsTxtRecordHoldsTheToken() {
        TestServer.Tenant owner = server.tenant(Tier.TEAM);
        var a = owner.http();
        try (WebhookReceiver receiver = WebhookReceiver.start()) {
            var hook = a.post("/v1/webhooks", "{\"url\":\"" + receiver.url("/hooks") + "\",\"events\":[\"domain.verified\"]}");
            assertThat(hook.status()).as(hook.body()).isEqualTo(201);

            String domain = Sites.unique("shop") + ".example.test";
            JsonNode p = Sites.migrate(a, Sites.unique("a"), domain, "a-shop", "\"env_vars\":{\"SHOP_SECRET\":\"s3cr3t-value\"}");
            String id = p.get("id").asText();
            assertThat(p.get("domain_status").asText()).isEqualTo("pending_verification");
            String record = "_slipway-challenge." + domain;
            assertThat(p.at("/domain_verification/type").asText()).isEqualTo("TXT");
            assertThat(p.at("/domain_verification/name").asText()).isEqualTo(record);
            String token = p.at("/domain_verification/value").asText();
            assertThat(token).startsWith("slipway-verify=").hasSizeGreaterThan(30);

            // live at its own address, but not at the domain: the apps listener's 404 page
            assertThat(Apps.get(p.get("url").asText()).body()).contains("a-shop");
            for (String host : List.of(domain, domain.toUpperCase(Locale.ROOT), domain + ".")) {
                Http.Response r = Apps.get(app(host));
                assertThat(r.status()).as(host).isEqualTo(404);
                assertThat(r.body()).contains("No app here").doesNotContain("a-shop");
            }

            var none = verify(a, id);
            assertThat(none.status()).as(none.body()).isEqualTo(200);
            assertThat(none.json().at("/data/domain_status").asText()).isEqualTo("pending_verification");
            assertThat(none.json().at("/data/domain_verification/reason").asText()).startsWith("no TXT record at " + record);
            assertThat(none.json().at("/data/domain_verification/checked_at").asText()).isNotEmpty();

            dns.txt(record, "slipway-verify=00000000000000000000000000000000");
            var wrong = verify(a, id);
            assertThat(wrong.json().at("/data/domain_status").asText()).isEqualTo("pending_verification");
            assertThat(wrong.json().at("/data/domain_verification/reason").asText())
                    .contains("holds \"slipway-verify=00000000000000000000000000000000\"").contains("not this project's token");
            assertThat(Apps.get(app(domain)).status()).isEqualTo(404);

            // another account can neither verify it nor read it; unknown ids are 404
            var stranger = server.tenant(Tier.TEAM).http();
            var forbidden = verify(stranger, id);
            assertThat(forbidden.status()).isEqualTo(403);
            assertThat(forbidden.json().at("/error/code").asText()).isEqualTo("forbidden");
            assertThat(verify(stranger, "prj_00000000000000000000000000").status()).isEqualTo(404);
            var noDomain = stranger.post("/v1/projects", "{\"source\":\"zip\"}");
            var nothingToVerify = verify(stranger, noDomain.json().at("/data/id").asText());
            assertThat(nothingToVerify.status()).isEqualTo(409);
            assertThat(nothingToVerify.json().at("/error/code").asText()).isEqualTo("invalid_state");

            dns.txt(record, "v=spf1 -all", token);
            var proven = verify(a, id);
            assertThat(proven.status()).as(proven.body()).isEqualTo(200);
            assertThat(proven.json().at("/data/domain_status").asText()).isEqualTo("verified");
            assertThat(proven.json().at("/data/domain_verification/reason").isNull()).isTrue();
            Http.Response served = Apps.get(app(domain));
            assertThat(served.status()).isEqualTo(200);
            assertThat(served.body()).contains("a-shop");
            assertThat(server.slipway().projects().verifiedDomains()).contains(domain);

            var event = receiver.await(Duration.ofSeconds(20), "domain.verified",
                    r -> r.type().equals("domain.verified") && r.json().at("/data/id").asText().equals(id));
            assertThat(event.json().at("/data/domain").asText()).isEqualTo(domain);
            assertThat(event.json().at("/data/domain_status").asText()).isEqualTo("verified");
            assertThat(event.json().at("/data/env_vars").toString()).isEqualTo("[\"SHOP_SECRET\"]");
            assertThat(event.body()).doesNotContain("s3cr3t-value");
            // the stranger's webhook-free account heard nothing, and a second verify changes nothing
            assertThat(verify(a, id).json().at("/data/domain_status").asText()).isEqualTo("verified");
        }
    }

    @Test
    void thePeriodicCheckVerifiesOnItsOwnAndKeepsTheReasonOfAWrongValue() {
        var a = server.tenant(Tier.TEAM).http();
        String domain = Sites.unique("loop") + ".example.test";
        var created = a.post("/v1/projects", "{\"source\":\"zip\",\"domain\":\"" + domain + "\"}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        String id = created.json().at("/data/id").asText();
        String token = created.json().at("/data/domain_verification/value").asText();
        String record = "_slipway-challenge." + domain;

        dns.txt(record, "someone-else's-token");
        JsonNode wrong = Await.value(Duration.ofSeconds(15), "the loop to record the wrong value", () -> {
            JsonNode p = Sites.project(a, id);
            return p.at("/domain_verification/reason").asText("").contains("not this project's token") ? p : null;
        });
        assertThat(wrong.get("domain_status").asText()).isEqualTo("pending_verification");

        dns.txt(record, token);
        Await.until(Duration.ofSeconds(15), "the loop to verify " + domain,
                () -> Sites.project(a, id).get("domain_status").asText().equals("verified"));
        assertThat(server.slipway().projects().verifiedDomains()).contains(domain);
    }

    private static Http.Response put(Http http, String projectId, String json) {
        return http.send("PUT", "/v1/projects/" + projectId + "/domain", "application/json",
                json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void changingTheDomainStartsOverAndTheOldOneStopsBeingServedOnEveryServer() {
        var a = server.tenant(Tier.TEAM).http();
        String first = Sites.unique("old") + ".example.test";
        JsonNode p = Sites.migrate(a, Sites.unique("m"), first, "moving-site");
        String id = p.get("id").asText();
        String token = p.at("/domain_verification/value").asText();
        dns.txt("_slipway-challenge." + first, token);
        assertThat(verify(a, id).json().at("/data/domain_status").asText()).isEqualTo("verified");
        assertThat(Apps.get(app(first)).body()).contains("moving-site");

        // a second server on the same PostgreSQL serves it too, and hears of the change below through the store
        Slipway peer = server.kind() == Dialect.POSTGRES ? server.startPeer() : null;
        try {
            String peerFirst = peer == null ? null : "http://" + first + ":" + peer.appsPort() + "/";
            if (peer != null) {
                Await.until(Duration.ofSeconds(20), "the peer to serve " + first,
                        () -> Apps.get(peerFirst).body().contains("moving-site"));
            }

            // another account can neither move nor remove it; bad bodies are 400s naming the field
            var stranger = server.tenant(Tier.TEAM).http();
            var foreign = put(stranger, id, "{\"domain\":null}");
            assertThat(foreign.status()).isEqualTo(403);
            assertThat(foreign.json().at("/error/code").asText()).isEqualTo("forbidden");
            assertThat(Apps.get(app(first)).body()).contains("moving-site");
            String theirs = Sites.unique("theirs") + ".example.test";
            var strangers = stranger.post("/v1/projects", "{\"source\":\"zip\",\"domain\":\"" + theirs + "\"}");
            assertThat(strangers.status()).isEqualTo(201);
            // proven: a claim alone would take nothing (aPendingClaimLocksNobodyOut…)
            dns.txt("_slipway-challenge." + theirs, strangers.json().at("/data/domain_verification/value").asText());
            assertThat(verify(stranger, strangers.json().at("/data/id").asText()).json().at("/data/domain_status").asText())
                    .isEqualTo("verified");
            for (String[] bad : new String[][]{
                    {"{\"domain\":\"x.localhost\"}", "apps domain"},
                    {"{}", "is required"},
                    {"{\"domain\":\"" + theirs.toUpperCase(Locale.ROOT) + "\"}", "already used"},
                    {"{\"domain\":7}", "must be a string"}}) {
                var r = put(a, id, bad[0]);
                assertThat(r.status()).as(bad[0]).isEqualTo(400);
                assertThat(r.json().at("/error/details/domain").asText()).contains(bad[1]);
            }
            assertThat(put(a, id, "{\"domain\":\"" + first + "\",\"name\":\"x\"}").json().at("/error/details/name").asText())
                    .isEqualTo("is not a field of this request");

            // the same domain again changes nothing
            var same = put(a, id, "{\"domain\":\"" + first.toUpperCase(Locale.ROOT) + "\"}");
            assertThat(same.status()).as(same.body()).isEqualTo(200);
            assertThat(same.json().at("/data/domain_status").asText()).isEqualTo("verified");

            String second = Sites.unique("new") + ".example.test";
            var moved = put(a, id, "{\"domain\":\"" + second + "\"}");
            assertThat(moved.status()).as(moved.body()).isEqualTo(200);
            assertThat(moved.json().at("/data/domain").asText()).isEqualTo(second);
            assertThat(moved.json().at("/data/domain_status").asText()).isEqualTo("pending_verification");
            String newToken = moved.json().at("/data/domain_verification/value").asText();
            assertThat(newToken).startsWith("slipway-verify=").isNotEqualTo(token);
            assertThat(moved.json().at("/data/domain_verification/name").asText()).isEqualTo("_slipway-challenge." + second);
            // the old record proves nothing for the new domain
            dns.txt("_slipway-challenge." + second, token);
            assertThat(verify(a, id).json().at("/data/domain_status").asText()).isEqualTo("pending_verification");
            assertThat(Apps.get(app(first)).status()).isEqualTo(404);
            assertThat(Apps.get(app(second)).status()).isEqualTo(404);
            assertThat(server.slipway().projects().verifiedDomains()).doesNotContain(first, second);
            if (peer != null) {
                Await.until(Duration.ofSeconds(10), "the peer to stop serving " + first, () -> Apps.get(peerFirst).status() == 404);
            }

            var removed = put(a, id, "{\"domain\":null}");
            assertThat(removed.status()).as(removed.body()).isEqualTo(200);
            assertThat(removed.json().at("/data/domain").isNull()).isTrue();
            assertThat(removed.json().at("/data/domain_status").isNull()).isTrue();
            assertThat(removed.json().at("/data/domain_verification").isNull()).isTrue();
            // and the old domain is free for another project again
            assertThat(stranger.post("/v1/projects", "{\"source\":\"zip\",\"domain\":\"" + second + "\"}").status()).isEqualTo(201);
        } finally {
            if (peer != null) peer.close();
        }
    }

    @Test
    void serversSharingTheStoreVerifyEachDomainOnceWithOneEvent() {
        TestServer.Tenant owner = server.tenant(Tier.TEAM);
        var a = owner.http();
        try (WebhookReceiver receiver = WebhookReceiver.start()) {
            var hook = a.post("/v1/webhooks", "{\"url\":\"" + receiver.url("/once") + "\",\"events\":[\"domain.verified\"]}");
            assertThat(hook.status()).as(hook.body()).isEqualTo(201);
            String hookId = hook.json().at("/data/id").asText();
            // on PostgreSQL a second server checks the same pending domains on the same schedule
            Slipway peer = server.kind() == Dialect.POSTGRES ? server.startPeer() : null;
            try {
                Map<String, String> domains = new LinkedHashMap<>();
                for (int i = 0; i < 5; i++) {
                    String domain = Sites.unique("race" + i) + ".example.test";
                    var r = a.post("/v1/projects", "{\"source\":\"zip\",\"domain\":\"" + domain + "\"}");
                    assertThat(r.status()).as(r.body()).isEqualTo(201);
                    domains.put(r.json().at("/data/id").asText(), domain);
                    dns.txt("_slipway-challenge." + domain, r.json().at("/data/domain_verification/value").asText());
                }
                for (var e : domains.entrySet()) {
                    Await.until(Duration.ofSeconds(20), e.getValue() + " to be verified",
                            () -> Sites.project(a, e.getKey()).get("domain_status").asText().equals("verified"));
                    // the event is queued in the transaction of the move: counted now, it is final
                    long events = server.slipway().database().jdbi().withHandle(h -> h.createQuery("""
                                    SELECT COUNT(*) FROM webhook_deliveries
                                    WHERE endpoint_id = :hook AND event_type = 'domain.verified' AND payload LIKE :project""")
                            .bind("hook", hookId).bind("project", "%\"id\":\"" + e.getKey() + "\"%").mapTo(Long.class).one());
                    assertThat(events).as("domain.verified events of " + e.getValue()).isEqualTo(1);
                }
                if (peer != null) assertThat(peer.projects().verifiedDomains()).containsAll(domains.values());
            } finally {
                if (peer != null) peer.close();
            }
        }
    }

    @Test
    void aPendingClaimLocksNobodyOut_theFirstToProveItWins_thenTheDomainBelongsToOneProjectCaseInsensitively() {
        var squatter = server.tenant(Tier.TEAM).http();
        var owner = server.tenant(Tier.TEAM).http();
        String domain = Sites.unique("dup") + ".example.test";
        String record = "_slipway-challenge." + domain;
        var claimed = squatter.post("/v1/projects", "{\"source\":\"zip\",\"domain\":\"" + domain.toUpperCase(Locale.ROOT) + "\"}");
        assertThat(claimed.status()).as(claimed.body()).isEqualTo(201);
        assertThat(claimed.json().at("/data/domain").asText()).isEqualTo(domain);
        String squatterId = claimed.json().at("/data/id").asText();

        // a claim without proof takes nothing: the domain's real owner can still add it, and prove it
        var mine = owner.post("/v1/projects", "{\"source\":\"zip\",\"domain\":\"" + domain + ".\"}");
        assertThat(mine.status()).as(mine.body()).isEqualTo(201);
        assertThat(mine.json().at("/data/domain_status").asText()).isEqualTo("pending_verification");
        String ownerId = mine.json().at("/data/id").asText();
        dns.txt(record, mine.json().at("/data/domain_verification/value").asText());
        var proven = verify(owner, ownerId);
        assertThat(proven.status()).as(proven.body()).isEqualTo(200);
        assertThat(proven.json().at("/data/domain_status").asText()).isEqualTo("verified");

        // the squatter's claim stays pending, even with its own token in DNS later
        dns.txt(record, claimed.json().at("/data/domain_verification/value").asText());
        var late = verify(squatter, squatterId);
        assertThat(late.status()).as(late.body()).isEqualTo(200);
        assertThat(late.json().at("/data/domain_status").asText()).isEqualTo("pending_verification");
        assertThat(late.json().at("/data/domain_verification/reason").asText()).contains("another project proved control of " + domain + " first");
        assertThat(server.slipway().projects().findByDomain(domain).orElseThrow().id()).isEqualTo(ownerId);

        // once proven, the domain is the owner's alone, in any spelling
        for (String same : List.of(domain, domain + ".", "DUP" + domain.substring(3))) {
            var r = squatter.post("/v1/projects", "{\"source\":\"zip\",\"domain\":\"" + same + "\"}");
            assertThat(r.status()).as(same).isEqualTo(400);
            assertThat(r.json().at("/error/details/domain").asText()).isEqualTo("is already used by a project");
            // its own pending claim, spelled another way, is no change: still pending, still not served
            var again = put(squatter, squatterId, "{\"domain\":\"" + same + "\"}");
            assertThat(again.status()).as(again.body()).isEqualTo(200);
            assertThat(again.json().at("/data/domain_status").asText()).isEqualTo("pending_verification");
        }
        assertThat(squatter.get("/v1/projects").json().get("data").size()).isEqualTo(1);
    }
}
