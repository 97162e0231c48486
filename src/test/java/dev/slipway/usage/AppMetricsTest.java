package dev.slipway.usage;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.dashboard.WebClient;
import dev.slipway.isolation.IsolationMode;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Apps;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.Statuses;
import dev.slipway.testing.TestServer;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An app that burns CPU, grows its memory and fails some requests: a sample of its cell and of the router's requests
 * shows each (the request counts and status classes exactly as the client sent them), {@code GET
 * /v1/projects/{id}/metrics} gives them as series, the request log holds a line per request, bad parameters are 400s,
 * another tenant reads none of it, and the project's page draws them.
 */
@EachStore
@EndToEnd
class AppMetricsTest {
    private final Dialect kind;

    AppMetricsTest(Dialect kind) {
        this.kind = kind;
    }

    private static final Map<String, String> APP = Map.of(
            "package.json", "{\"name\": \"metrics-app\", \"version\": \"1.0.0\", \"private\": true, \"scripts\": {\"start\": \"node server.js\"}}\n",
            "server.js", """
                    const kept = [];
                    require("http").createServer((req, res) => {
                      if (req.url === "/burn") { const from = process.cpuUsage(); while (process.cpuUsage(from).user + process.cpuUsage(from).system < 1e6) {} return res.end("burnt"); }
                      if (req.url === "/grow") { const b = Buffer.alloc(64 * 1024 * 1024, 1); kept.push(b); return res.end("grown " + kept.length); }
                      if (req.url === "/fail") { res.statusCode = 500; return res.end("failed"); }
                      if (req.url.split("?")[0] === "/missing") { res.statusCode = 404; return res.end("no"); }
                      res.end("ok");
                    }).listen(Number(process.env.PORT), "127.0.0.1");
                    """);

    @Test
    void anAppsCpuMemoryRequestsAndErrorsAreSampledServedAsSeriesAndDrawn() {
        try (TestServer server = TestServer.start(kind, c -> c.isolation(IsolationMode.SANDBOX))) {
            TestServer.Tenant tenant = server.tenant(Tier.PRO, 1_000_000);
            Http http = tenant.http();
            JsonNode done = Statuses.migrateZip(http, APP);
            String project = done.get("project_id").asText();
            String url = done.get("url").asText();
            UsageSampler sampler = server.slipway().usage();
            // what came before (the deploy's own checks) is counted apart; the sampler's own timer takes samples meanwhile
            java.time.Instant t0 = sampler.sample().stream().map(UsageSample::at).findFirst().orElse(java.time.Instant.now());

            Map<Integer, Integer> sent = new HashMap<>();
            for (int i = 0; i < 120; i++) count(sent, Apps.get(url + "/").status());
            for (int i = 0; i < 15; i++) count(sent, Apps.get(url + "/fail").status());
            for (int i = 0; i < 7; i++) count(sent, Apps.get(url + "/missing").status());
            count(sent, Apps.get(url + "/burn").status());
            count(sent, Apps.get(url + "/grow").status());
            assertThat(sent).containsEntry(200, 122).containsEntry(500, 15).containsEntry(404, 7);

            // the relay counts an exchange once its answer is written: the client may read it a moment before
            UsageSample[] got = new UsageSample[1];
            dev.slipway.testing.Await.until(java.time.Duration.ofSeconds(30), "the requests to be counted", () -> {
                sampler.sample();
                got[0] = sampler.store().read(project, 10, t0.plusMillis(1), java.time.Instant.now().plusSeconds(60)).stream()
                        .reduce(UsageSampler::over).orElseThrow();
                return got[0].requests() >= 144;
            });
            UsageSample s = got[0];
            assertThat(s.requests()).as("requests the router relayed").isEqualTo(144);
            assertThat(s.errors5xx()).isEqualTo(15);
            assertThat(s.latency().getTotalCount()).isEqualTo(144);
            assertThat(s.latency().getMaxValue() / 1000).as("the burn's latency, ms").isGreaterThanOrEqualTo(950);
            assertThat(s.cpuSeconds()).as("CPU the burn used").isGreaterThanOrEqualTo(0.95);
            assertThat(s.memoryBytes()).as("memory after the growth").isGreaterThan(64L * 1024 * 1024);
            assertThat(s.memoryLimitBytes()).isGreaterThanOrEqualTo(s.memoryBytes());
            assertThat(s.processes()).isPositive();

            JsonNode read = http.get("/v1/projects/" + project + "/metrics?step=10").json().get("data");
            assertThat(read.get("step_seconds").asInt()).isEqualTo(10);
            Map<String, JsonNode> series = new HashMap<>();
            read.get("series").forEach(x -> series.put(x.get("name").asText(), x));
            assertThat(series).containsKeys("cpu_seconds", "memory_bytes", "requests", "errors_5xx", "latency_p95_ms");
            assertThat(sum(series.get("requests"))).isGreaterThanOrEqualTo(144);
            assertThat(sum(series.get("errors_5xx"))).isEqualTo(15);
            assertThat(sum(series.get("cpu_seconds"))).isGreaterThanOrEqualTo(0.95);
            assertThat(max(series.get("memory_bytes"))).isGreaterThan(64.0 * 1024 * 1024);
            assertThat(max(series.get("latency_p95_ms"))).isPositive();
            assertThat(series.get("memory_bytes").get("unit").asText()).isEqualTo("bytes");

            for (String bad : List.of("?step=7", "?from=yesterday", "?from=2026-01-01T00:00:00Z", "?step=10&from=0&to=1",
                    "?from=" + (System.currentTimeMillis() / 1000) + "&to=" + (System.currentTimeMillis() / 1000 - 60))) {
                var r = http.get("/v1/projects/" + project + "/metrics" + bad);
                assertThat(r.status()).as(bad + ": " + r.body()).isEqualTo(400);
            }
            assertThat(http.get("/v1/projects/prj_nothere/metrics").status()).isEqualTo(404);

            // the request log: a line per request, its query never kept, searchable by status and path prefix, newest first
            assertThat(Apps.get(url + "/missing?token=secret-in-the-query").status()).isEqualTo(404);
            String deployment = done.get("deployment_id").asText();
            String requests = "/v1/deployments/" + deployment + "/requests";
            dev.slipway.testing.Await.until(java.time.Duration.ofSeconds(30), "the request log's lines", () -> {
                server.slipway().requestLogs().write();
                return http.get(requests + "?limit=1000").json().at("/data/requests").size() >= 145;
            });
            JsonNode all = http.get(requests + "?limit=1000").json();
            assertThat(all.at("/data/requests").size()).as("lines, one per request").isEqualTo(145);
            assertThat(all.toString()).doesNotContain("secret-in-the-query").doesNotContain("token");
            JsonNode newest = all.at("/data/requests/0");
            assertThat(newest.get("method").asText()).isEqualTo("GET");
            assertThat(newest.get("path").asText()).isEqualTo("/missing");
            assertThat(newest.get("status").asInt()).isEqualTo(404);
            assertThat(newest.get("client").asText()).isEqualTo("127.0.0.1");
            assertThat(newest.get("duration_ms").asDouble()).isPositive();
            assertThat(newest.get("bytes").asLong()).isEqualTo(2);
            assertThat(newest.has("at")).isTrue();
            assertThat(http.get(requests + "?status=5xx&limit=1000").json().at("/data/requests").size()).isEqualTo(15);
            assertThat(http.get(requests + "?status=404&limit=1000").json().at("/data/requests").size()).isEqualTo(8);
            assertThat(http.get(requests + "?path=/fa&limit=1000").json().at("/data/requests").size()).isEqualTo(15);
            assertThat(http.get(requests + "?path=/b%25&limit=1000").json().at("/data/requests").size()).as("% is literal").isZero();
            JsonNode first = http.get(requests + "?status=2xx&limit=100").json();
            assertThat(first.at("/pagination/has_more").asBoolean()).isTrue();
            JsonNode rest = http.get(requests + "?status=2xx&limit=100&before=" + first.at("/pagination/next_cursor").asText()).json();
            assertThat(first.at("/data/requests").size() + rest.at("/data/requests").size()).isEqualTo(122);
            assertThat(rest.at("/pagination/has_more").asBoolean()).isFalse();
            for (String bad : List.of("?status=6xx", "?status=abc", "?path=nope", "?limit=0", "?before=x12")) {
                var r = http.get(requests + bad);
                assertThat(r.status()).as(bad + ": " + r.body()).isEqualTo(400);
                assertThat(r.json().at("/error/code").asText()).isNotEmpty();
            }

            // the platform's own metrics: the deployment's outcome and build time, the long-polls kept apart as waits
            String platform = server.anonymous().get("/metrics").body();
            assertThat(platform).contains("slipway_deployments_seconds_count{outcome=\"live\"}").contains("slipway_builds_seconds_bucket{")
                    .contains("http_server_waits_seconds_count{method=\"GET\",route=\"/v1/migrations/{migration_id}\"}")
                    .contains("slipway_app_instances 1.0")
                    .as("the app's process at the last sample").contains("slipway_app_processes{state=\"running\"} 1.0");

            // another tenant reads neither the metrics nor the request log of this one
            Http other = server.tenant(Tier.PRO).http();
            var metricsRead = other.get("/v1/projects/" + project + "/metrics");
            assertThat(metricsRead.status()).isEqualTo(403);
            assertThat(metricsRead.body()).doesNotContain("series");
            var requestsRead = other.get(requests);
            assertThat(requestsRead.status()).isEqualTo(403);
            assertThat(requestsRead.body()).doesNotContain("/missing");

            // the project's page draws them
            String email = "metrics-" + System.nanoTime() + "@example.com";
            server.slipway().users().create(tenant.account().id(), email, "a long enough password 42");
            WebClient web = new WebClient(server.baseUrl());
            assertThat(web.signIn(email, "a long enough password 42").statusCode()).isEqualTo(303);
            String page = web.get("/dashboard/projects/" + project).body();
            assertThat(page).contains("<h2>Last hour</h2>").contains("data-series=\"requests\"").contains("data-series=\"memory_bytes\"")
                    .contains("data-series=\"latency_p95_ms\"");
            // and the deployment's page its newest requests, all or one status class
            String requestsPage = web.get("/dashboard/deployments/" + deployment).body();
            assertThat(requestsPage).contains("<h2 id=\"requests-title\">Requests</h2>").contains("<code>GET /missing</code>")
                    .contains("data-status=\"404\"").doesNotContain("secret-in-the-query");
            String failures = web.get("/dashboard/deployments/" + deployment + "?requests=5xx").body();
            assertThat(failures).contains("<code>GET /fail</code>").doesNotContain("<code>GET /missing</code>")
                    .contains("aria-current=\"page\">5xx");
        }
    }

    private static void count(Map<Integer, Integer> sent, int status) {
        sent.merge(status, 1, Integer::sum);
    }

    private static double sum(JsonNode series) {
        double total = 0;
        for (JsonNode p : series.get("points")) total += p.get(1).asDouble();
        return total;
    }

    private static double max(JsonNode series) {
        double most = 0;
        for (JsonNode p : series.get("points")) most = Math.max(most, p.get(1).asDouble());
        return most;
    }
}
