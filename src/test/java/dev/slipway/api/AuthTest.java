package dev.slipway.api;

import dev.slipway.accounts.Tier;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.ServerPerStore;
import java.net.URI;
import java.net.http.HttpRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

@EachStore
@EndToEnd
class AuthTest {
    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.start();

    private static void assertUnauthorized(Http.Response r) {
        assertThat(r.status()).isEqualTo(401);
        assertThat(r.json().at("/error/code").asText()).isEqualTo("unauthorized");
        assertThat(r.json().at("/error/request_id").asText()).isEqualTo(r.header("X-Request-Id"));
        assertThat(r.header("X-RateLimit-Limit")).isEqualTo("30");
    }

    @Test
    void validKeyReads() {
        var t = server.tenant(Tier.PRO);
        var r = t.http().get("/v1/projects");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json().get("data").isArray()).isTrue();
        assertThat(r.header("X-RateLimit-Limit")).isEqualTo("120");
    }

    @Test
    void missingKeyIs401() {
        assertUnauthorized(server.anonymous().get("/v1/projects"));
    }

    @Test
    void malformedHeadersAre401() {
        var t = server.tenant(Tier.FREE);
        for (String header : new String[]{"Basic abc", "Bearer", "Bearer ", t.key(), "Bearer " + t.key() + " extra",
                "Bearer sk_" + "x".repeat(300), "bearer" + t.key()}) {
            var r = server.anonymous().send(HttpRequest.newBuilder(
                    URI.create(server.baseUrl() + "/v1/projects")).header("Authorization", header).GET());
            assertUnauthorized(r);
        }
    }

    @Test
    void unknownKeyIs401() {
        assertUnauthorized(server.anonymous().withKey("sk_" + "A".repeat(40)).get("/v1/projects"));
    }

    @Test
    void revokedKeyStopsWorkingWithinOneSecond() throws Exception {
        // asked back to back: a tier's 600 a minute would be spent before the second is up
        var t = server.tenant(Tier.TEAM, 1_000_000);
        var second = server.slipway().keys().create(t.account().id(), "second");
        var http = server.anonymous().withKey(second.secret());
        assertThat(http.get("/v1/projects").status()).isEqualTo(200);
        assertThat(server.slipway().keys().revoke(second.key().id())).isTrue();
        Instant revokedAt = Instant.now();
        int status = 200;
        while (Duration.between(revokedAt, Instant.now()).toMillis() < 1000 && status == 200) {
            status = http.get("/v1/projects").status();
        }
        assertThat(status).as("revoked key refused within a second").isEqualTo(401);
        assertUnauthorized(http.get("/v1/projects"));
        // the account's other key is unaffected
        assertThat(t.http().get("/v1/projects").status()).isEqualTo(200);
    }

    @Test
    void keysAreStoredOnlyAsHashes() {
        var t = server.tenant(Tier.FREE);
        long plainCopies = server.slipway().database().jdbi().withHandle(h ->
                h.createQuery("SELECT COUNT(*) FROM api_keys WHERE key_hash = :k OR prefix = :k OR name = :k")
                        .bind("k", t.key()).mapTo(Long.class).one());
        assertThat(plainCopies).isZero();
        String hash = server.slipway().database().jdbi().withHandle(h ->
                h.createQuery("SELECT key_hash FROM api_keys WHERE account_id = :a").bind("a", t.account().id())
                        .mapTo(String.class).one());
        assertThat(hash).hasSize(64).doesNotContain(t.key().substring(3));
    }

    @Test
    void otherAccountsProjectIs403AndMissingIs404() {
        var owner = server.tenant(Tier.TEAM);
        var stranger = server.tenant(Tier.TEAM);
        var created = owner.http().post("/v1/projects", "{\"source\":\"github\",\"repo\":\"acme/secret-app\"}");
        assertThat(created.status()).isEqualTo(201);
        String id = created.json().at("/data/id").asText();
        assertThat(owner.http().get("/v1/projects/" + id).status()).isEqualTo(200);
        var forbidden = stranger.http().get("/v1/projects/" + id);
        assertThat(forbidden.status()).isEqualTo(403);
        assertThat(forbidden.json().at("/error/code").asText()).isEqualTo("forbidden");
        var missing = stranger.http().get("/v1/projects/prj_00000000000000000000000000");
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.json().at("/error/code").asText()).isEqualTo("not_found");
        assertThat(missing.json().at("/error/message").asText()).contains("prj_00000000000000000000000000");
        // and the stranger's list does not show it
        assertThat(stranger.http().get("/v1/projects").body()).doesNotContain(id);
    }

    @Test
    void healthEndpointsNeedNoKey() throws InterruptedException {
        assertThat(server.anonymous().get("/healthz").status()).isEqualTo(200);
        assertThat(server.slipway().awaitRecovery(Duration.ofSeconds(60))).isTrue();
        var ready = server.anonymous().get("/readyz");
        assertThat(ready.status()).isEqualTo(200);
        assertThat(ready.json().get("store").asText()).isEqualTo(server.kind().name().toLowerCase());
        JsonNode recovery = ready.json().get("recovery");
        assertThat(recovery.get("status").asText()).as(recovery.toString()).isEqualTo("done");
        assertThat(recovery.get("apps_adopted").asInt() + recovery.get("apps_started").asInt()).as("a new store has no app").isZero();
        assertThat(recovery.get("took_ms").asLong()).isNotNegative();
        assertThat(server.anonymous().get("/v1/projects/prj_00000000000000000000000000").status()).isEqualTo(401);
        var metrics = server.anonymous().get("/metrics");
        assertThat(metrics.status()).isEqualTo(200);
        String body = metrics.body();
        assertThat(body).contains("http_server_requests_seconds_count")
                .as("a request refused before its route ran is labelled with its route")
                .contains("http_server_requests_seconds_count{method=\"GET\",route=\"/v1/projects/{project_id}\",status=\"401\"}")
                .as("latency in histogram buckets").contains("http_server_requests_seconds_bucket{method=\"GET\",route=\"/healthz\",status=\"200\",le=\"0.005\"}")
                .contains("slipway_jobs_queued ").contains("slipway_jobs_oldest_queued_seconds ").contains("slipway_app_instances ").contains("slipway_app_processes{state=\"restarting\"} ")
                .contains("slipway_webhook_deliveries_total{outcome=\"delivered\"}").contains("slipway_certificates_soonest_expiry_seconds ");
        assertThat(body.lines().filter(l -> l.startsWith("# HELP ")))
                .as("every metric says what it is").allMatch(l -> l.split(" ", 4).length == 4 && !l.split(" ", 4)[3].isBlank());
    }
}
