package dev.slipway.alerts;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.isolation.IsolationMode;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Await;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.TestServer;
import dev.slipway.testing.WebhookReceiver;
import dev.slipway.usage.UsageSample;
import dev.slipway.webhooks.WebhookSettings;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A project's own alert rules, set through the API and judged on samples: an error rate and a p95 latency that must hold
 * for some minutes fire once, only after those minutes of samples that all show it (a sample that does not starts the
 * count again), and resolve once. The samples are the test's input; the rules, the store, the outbox and the delivery to
 * a Discord-shaped receiver on loopback are the server's own.
 */
@EachStore
@EndToEnd
class AlertRulesTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private final Dialect kind;

    AlertRulesTest(Dialect kind) {
        this.kind = kind;
    }

    @Test
    void aProjectsRulesFireOnlyOnceTheyHeldForTheirMinutesAndResolveOnce() {
        try (WebhookReceiver receiver = WebhookReceiver.start();
             TestServer server = TestServer.start(kind, c -> c.isolation(IsolationMode.NONE)
                     .webhooks(new WebhookSettings(true, List.of(Duration.ofMillis(300), Duration.ofMillis(300)))))) {
            Http http = server.tenant(Tier.PRO).http();
            String project = http.post("/v1/projects", "{\"source\":\"zip\",\"name\":\"ruled\"}").json().at("/data/id").asText();
            String path = "/v1/projects/" + project + "/alert-rules";

            JsonNode defaults = http.get(path).json().get("data");
            assertThat(defaults.at("/error_rate/above_percent").asInt()).isEqualTo(50);
            assertThat(defaults.at("/error_rate/min_requests").asInt()).isEqualTo(10);
            assertThat(defaults.get("latency_p95").isNull()).isTrue();
            for (String bad : List.of("{\"error_rate\":{\"above_percent\":0}}", "{\"error_rate\":{\"for_minutes\":3}}",
                    "{\"latency_p95\":{\"above_ms\":\"x\"}}", "{\"nope\":1}", "{\"error_rate\":{\"above_percent\":5,\"extra\":1}}",
                    "{\"error_rate\":5}", "{\"latency_p95\":{\"above_ms\":100,\"for_minutes\":99999}}", "[]")) {
                var r = http.send("PUT", path, "application/json", bad.getBytes());
                assertThat(r.status()).as(bad + " " + r.body()).isEqualTo(400);
                assertThat(r.json().at("/error/code").asText()).isEqualTo("invalid_request");
            }
            assertThat(http.get(path).json().get("data")).isEqualTo(defaults);
            Http other = server.tenant(Tier.PRO).http();
            assertThat(other.get(path).status()).isEqualTo(403);
            assertThat(other.send("PUT", path, "application/json", "{}".getBytes()).status()).isEqualTo(403);
            assertThat(http.get("/v1/projects/prj_nope/alert-rules").status()).isEqualTo(404);

            var put = http.send("PUT", path, "application/json", ("{\"error_rate\":{\"above_percent\":20,\"for_minutes\":2,"
                    + "\"min_requests\":5},\"latency_p95\":{\"above_ms\":200,\"for_minutes\":1}}").getBytes());
            assertThat(put.status()).as(put.body()).isEqualTo(200);
            assertThat(http.get(path).json().at("/data/latency_p95/above_ms").asInt()).isEqualTo(200);
            var hook = http.post("/v1/webhooks", "{\"url\":\"" + receiver.url("/discord") + "\",\"format\":\"discord\","
                    + "\"events\":[\"app.errors\",\"app.errors.resolved\",\"app.latency\",\"app.latency.resolved\"]}");
            assertThat(hook.status()).as(hook.body()).isEqualTo(201);
            String deliveries = "/v1/webhooks/" + hook.json().at("/data/id").asText() + "/deliveries";

            var jdbi = server.slipway().stores().database().jdbi();
            Alerts alerts = new Alerts(jdbi, new AlertRuleStore(jdbi), server.slipway().stores().outbox(), "rules-test",
                    Clock.systemUTC());
            Instant t0 = Instant.parse("2026-11-27T10:00:00Z");
            // errors (20 % for 2 min) hold from 0 s and fire at 120 s; latency (200 ms for 1 min) holds at 0 s, not at
            // 30 s, then from 60 s, so it fires at 120 s too: each message's numbers are its firing sample's
            long[][] samples = {{0, 3, 250}, {30, 3, 50}, {60, 4, 260}, {90, 4, 270}, {120, 5, 330}, {150, 6, 400}};
            for (long[] s : samples) {
                alerts.evaluate(List.of(sample(project, t0.plusSeconds(s[0]), 10, s[1], s[2])));
                // an event is queued in the transaction that opens its incident: none yet means none fired
                if (s[0] < 120) {
                    assertThat(http.get(deliveries).json().get("data")).as("nothing before the minutes held, at " + s[0] + " s").isEmpty();
                }
            }
            Await.until(WAIT, "both alerts", () -> texts(receiver).size() == 2);
            assertThat(texts(receiver)).contains("[FIRING] ruled: failing requests (5 of 10 requests answered 5xx, for 2 min)")
                    .anyMatch(t -> t.matches("\\[FIRING\\] ruled: slow requests \\(p95 3\\d\\d ms over 200 ms, for 1 min\\)"));

            // a sample without requests neither fires again nor resolves; the next good one resolves both, once
            alerts.evaluate(List.of(sample(project, t0.plusSeconds(160), 0, 0, 0)));
            alerts.evaluate(List.of(sample(project, t0.plusSeconds(170), 10, 0, 10)));
            alerts.evaluate(List.of(sample(project, t0.plusSeconds(180), 10, 0, 10)));
            Await.until(WAIT, "both resolutions", () -> texts(receiver).size() == 4);
            assertThat(texts(receiver).subList(2, 4)).allMatch(t -> t.startsWith("[RESOLVED] ruled: "))
                    .anyMatch(t -> t.contains("failing requests is over")).anyMatch(t -> t.contains("slow requests is over"));
            assertThat(texts(receiver)).hasSize(4);
        }
    }

    private static UsageSample sample(String project, Instant at, long requests, long errors, long p95Ms) {
        Histogram latency = UsageSample.emptyLatency();
        if (requests > 0) latency.recordValueWithCount(p95Ms * 1000, requests);
        return new UsageSample(project, at, 10, 0.1, 1 << 20, 256 << 20, 1, 0, 0, requests, errors, requests * 100, latency);
    }

    private static List<String> texts(WebhookReceiver receiver) {
        return receiver.received("/discord").stream().map(r -> r.json().path("content").asText()).toList();
    }
}
