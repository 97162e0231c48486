package dev.slipway.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.slipway.accounts.Tier;
import dev.slipway.deployments.DeploymentStatus;
import dev.slipway.logs.Level;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Await;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.ServerPerStore;
import dev.slipway.testing.TestServer;
import dev.slipway.testing.WebhookReceiver;
import dev.slipway.webhooks.WebhookSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Webhooks of a real migrate → deploy → roll back flow (real git, real builds, real apps): every event
 * arrives, signed (checked with an independent verifier), once per change, in the order of the changes,
 * carrying the resource as its GET shows it; failures carry their last log lines; a change whose
 * transaction rolls back sends nothing.
 */
@EachStore
@EndToEnd
class WebhookFlowTest {
    private static final Duration SOON = Duration.ofSeconds(15);

    final Dialect kind = server.kind();

    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.withGit(c -> c.webhooks(new WebhookSettings(true, List.of(Duration.ofMillis(300)))));
    static TestServer.Tenant tenant;
    static WebhookReceiver receiver;
    static Runs runs;

    @EachStore.Before
    static void start() {
        tenant = server.tenant(Tier.TEAM);
        receiver = WebhookReceiver.start();
        runs = new Runs(tenant.http());
    }

    @EachStore.After
    static void stop() {
        receiver.close();
    }

    private static String hook(TestServer.Tenant t, String path, String events) {
        var r = t.http().post("/v1/webhooks", "{\"url\":\"" + receiver.url(path) + "\",\"events\":" + events + "}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().at("/data/secret").asText();
    }

    /** "type id" of each distinct event (by webhook-id) that reached {@code path}, in arrival order. */
    private static List<String> events(String path) {
        Map<String, String> byId = new LinkedHashMap<>();
        for (var r : receiver.received(path)) {
            byId.putIfAbsent(r.webhookId(), r.type() + " " + r.json().at("/data/id").asText());
        }
        return new ArrayList<>(byId.values());
    }

    @Test
    void everyEventOfAMigrateDeployRollbackFlowArrivesSignedAndInOrder() {
        String path = "/flow-" + kind;
        String secret = hook(tenant, path, "[\"*\"]");
        String onlyLive = "/only-live-" + kind;
        String liveSecret = hook(tenant, onlyLive, "[\"deployment.live\"]");
        String repo = "acme/hooked-" + kind.name().toLowerCase();
        server.git().createRepo(repo);
        server.git().commit(repo, "main", NodeApp.version("v1"), "v1");

        String m = runs.migrate(repo);
        runs.awaitMigration(m, "complete");
        String project = runs.projectOf(m);
        String d1 = runs.firstDeployment(project);
        server.git().commit(repo, "main", NodeApp.version("v2"), "v2");
        String d2 = runs.deploy(project);
        runs.awaitDeployment(d2, "live");
        var rb = tenant.http().send("POST", "/v1/deployments/" + d1 + "/rollback", null, null);
        assertThat(rb.status()).as(rb.body()).isEqualTo(201);
        String r = rb.json().at("/data/id").asText();
        runs.awaitDeployment(r, "live");
        runs.awaitDeployment(d2, "rolled_back");

        List<String> expected = List.of(
                "deployment.queued " + d1, "migration.processing " + m, "deployment.building " + d1,
                "deployment.deploying " + d1, "deployment.live " + d1, "migration.complete " + m,
                "deployment.queued " + d2, "deployment.building " + d2, "deployment.deploying " + d2, "deployment.live " + d2,
                "deployment.queued " + r, "deployment.deploying " + r, "deployment.live " + r, "deployment.rolled_back " + d2);
        Await.until(SOON, "all " + expected.size() + " events", () -> events(path).size() >= expected.size());
        assertThat(events(path)).containsExactlyElementsOf(expected);
        List<WebhookReceiver.Received> got = receiver.received(path);
        assertThat(got).allMatch(x -> x.verifiesWith(secret), "verified by com.svix.Webhook");
        assertThat(new HashSet<>(got.stream().map(WebhookReceiver.Received::webhookId).toList())).hasSize(expected.size());

        // each payload is the resource as GET shows it at that change
        for (var x : got) {
            JsonNode body = x.json();
            String type = body.get("type").asText();
            assertThat(body.at("/data/status").asText()).as(type).isEqualTo(type.substring(type.indexOf('.') + 1));
            assertThat(body.has("logs")).as(type).isFalse();
            assertThat(body.get("timestamp").asText()).matches("\\d{4}-.*Z");
        }
        // a payload is the read without its processes (what runs at the moment of a read, not of the change)
        JsonNode finalRollback = tenant.http().get("/v1/deployments/" + r).json().get("data");
        assertThat(finalRollback.at("/processes/0/type").asText() + " " + finalRollback.at("/processes/0/state").asText())
                .as("the rollback switched to its target's running app: that app's process").isEqualTo("web running");
        ((ObjectNode) finalRollback).remove("processes");
        JsonNode liveEvent = payload(path, "deployment.live", r);
        assertThat(liveEvent.get("data")).isEqualTo(finalRollback);
        assertThat(liveEvent.at("/data/preview_url").isNull()).as("production when it went live").isTrue();
        JsonNode complete = payload(path, "migration.complete", m).get("data");
        assertThat(complete).isEqualTo(tenant.http().get("/v1/migrations/" + m).json().get("data"));
        JsonNode rolledBack = payload(path, "deployment.rolled_back", d2).get("data");
        JsonNode d2Read = tenant.http().get("/v1/deployments/" + d2).json().get("data");
        ((ObjectNode) d2Read).remove("processes");
        assertThat(rolledBack).isEqualTo(d2Read);

        // an endpoint that subscribed to one event type gets only those
        Await.until(SOON, "the live events", () -> events(onlyLive).size() >= 3);
        assertThat(events(onlyLive)).containsExactly("deployment.live " + d1, "deployment.live " + d2, "deployment.live " + r);
        assertThat(receiver.received(onlyLive)).allMatch(x -> x.verifiesWith(liveSecret));

        // a state change whose transaction rolls back writes no event
        var store = server.slipway().stores().deployments();
        int before = deliveryRows();
        assertThatThrownBy(() -> store.jdbi().useTransaction(h -> {
            assertThat(store.transition(h, r, DeploymentStatus.LIVE, DeploymentStatus.ROLLED_BACK, Level.INFO, "doomed")).isTrue();
            throw new IllegalStateException("rolled back on purpose");
        })).hasMessageContaining("on purpose");
        assertThat(deliveryRows()).isEqualTo(before);
        assertThat(runs.deployment(r).get("status").asText()).isEqualTo("live");
    }

    @Test
    void failuresCarryTheLastLinesOfTheLog() {
        TestServer.Tenant own = server.tenant(Tier.TEAM);
        String path = "/failures-" + kind;
        String secret = hook(own, path, "[\"migration.failed\",\"deployment.failed\"]");
        var created = own.http().post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"acme/not-there-" + kind
                + "\",\"framework\":\"node-express\"}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        String m = created.json().at("/data/id").asText();
        Await.until(SOON, "both failure events", () -> events(path).size() >= 2);
        List<String> types = events(path).stream().map(e -> e.split(" ")[0]).toList();
        assertThat(types).containsExactly("deployment.failed", "migration.failed");
        for (var x : receiver.received(path)) {
            assertThat(x.verifiesWith(secret)).isTrue();
            JsonNode logs = x.json().get("logs");
            assertThat(logs.isArray()).isTrue();
            assertThat(logs.size()).isBetween(1, 20);
            JsonNode last = logs.get(logs.size() - 1);
            assertThat(last.get("level").asText()).isEqualTo("error");
            assertThat(last.get("message").asText()).containsIgnoringCase("failed");
            assertThat(last.has("timestamp")).isTrue();
        }
        JsonNode migrationFailed = payload(path, "migration.failed", m);
        assertThat(migrationFailed.get("data")).isEqualTo(own.http().get("/v1/migrations/" + m).json().get("data"));
        List<String> logMessages = new ArrayList<>();
        own.http().get("/v1/migrations/" + m + "/logs").json().at("/data/logs").forEach(e -> logMessages.add(e.get("message").asText()));
        List<String> carried = new ArrayList<>();
        migrationFailed.get("logs").forEach(e -> carried.add(e.get("message").asText()));
        assertThat(logMessages).endsWith(carried.toArray(String[]::new));
    }

    private static JsonNode payload(String path, String type, String id) {
        return receiver.received(path).stream().map(WebhookReceiver.Received::json)
                .filter(j -> j.get("type").asText().equals(type) && j.at("/data/id").asText().equals(id))
                .findFirst().orElseThrow(() -> new AssertionError("no " + type + " for " + id));
    }

    private static int deliveryRows() {
        return server.slipway().database().jdbi().withHandle(h -> h.createQuery("SELECT COUNT(*) FROM webhook_deliveries")
                .mapTo(Integer.class).one());
    }
}
