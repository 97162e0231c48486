package dev.slipway.deployments;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.isolation.IsolationMode;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Apps;
import dev.slipway.testing.Await;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.Statuses;
import dev.slipway.testing.TestServer;
import dev.slipway.testing.Zips;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A service that runs as several instances: {@code [run] replicas = 2} starts two, each in a cell of its own, and the
 * router spreads requests over them; one killed under a bounded request loop fails none of the loop's requests, and it
 * comes back; {@code PATCH replicas} scales production up and down without a rebuild; a deploy under load fails none
 * either, its instances passing their health check before the switch.
 */
@EachStore
@EndToEnd
class ReplicasTest {
    private static final Duration RUN = Duration.ofMinutes(3);
    private static final Duration WAIT = Duration.ofSeconds(90);

    private final Dialect kind;

    ReplicasTest(Dialect kind) {
        this.kind = kind;
    }

    static Map<String, String> app(String version) {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("package.json", """
                {"name": "replica-app", "version": "1.0.0", "private": true}
                """);
        files.put("slipway.toml", """
                [run]
                command = "node server.js"
                replicas = 2
                [health]
                path = "/healthz"
                """);
        // each instance names itself by an id of its own; /die ends the instance that answers it, after its answer
        files.put("server.js", """
                const http = require("http");
                const id = require("crypto").randomUUID();
                http.createServer((req, res) => {
                  if (req.url === "/healthz") return res.end("ok");
                  if (req.url === "/version") return res.end("%s");
                  if (req.url === "/die") { res.end("dying " + id); return setImmediate(() => process.exit(1)); }
                  res.end(id);
                }).listen(Number(process.env.PORT), "127.0.0.1");
                """.formatted(version));
        return files;
    }

    @Test
    void replicasShareTheLoadSurviveAKillScaleWithoutARebuildAndDeployWithoutAFailedRequest() throws Exception {
        try (TestServer server = TestServer.start(kind, c -> c.isolation(IsolationMode.SANDBOX))) {
            TestServer.Tenant tenant = server.tenant(Tier.PRO, 1_000_000);
            Http http = tenant.http();
            JsonNode done = Statuses.migrateZip(http, app("one"));
            String project = done.get("project_id").asText();
            String deployment = done.get("deployment_id").asText();
            String url = done.get("url").asText();

            assertThat(webProcesses(http, deployment)).containsExactly("web running", "web.2 running");
            assertThat(http.get("/v1/deployments/" + deployment + "/logs?limit=500").body())
                    .contains("Starting instance 2 of 2 of web").contains("replicas: 2");
            assertThat(ids(url, 20)).hasSize(2);

            // one instance dies under a bounded loop of GETs: none of them fails, and it comes back
            Set<String> before = ids(url, 20);
            Loop loop = Loop.start(url, 4, 150);
            loop.halfway.await();
            var killed = Apps.get(url + "/die");
            assertThat(killed.status()).as(killed.body()).isEqualTo(200);
            assertThat(loop.failures()).as("requests that failed while an instance died").isEmpty();
            assertThat(loop.done.get()).isEqualTo(4 * 150);
            Await.until(WAIT, "the dead instance to run again", () -> {
                Set<String> now = ids(url, 20);
                return now.size() == 2 && !now.equals(before);
            });
            assertThat(http.get("/v1/deployments/" + deployment + "/logs?limit=1000").body()).contains("App restarted");

            // scaled without a rebuild, up then down
            JsonNode three = patch(http, project, "{\"replicas\":3}");
            assertThat(three.get("replicas").asInt()).isEqualTo(3);
            Await.until(WAIT, "a third instance", () -> webProcesses(http, deployment).size() == 3 && ids(url, 30).size() == 3);
            assertThat(webProcesses(http, deployment)).containsExactly("web running", "web.2 running", "web.3 running");
            patch(http, project, "{\"replicas\":1}");
            Await.until(WAIT, "one instance left", () -> webProcesses(http, deployment).size() == 1);
            assertThat(ids(url, 10)).hasSize(1);
            assertThat(http.get("/v1/deployments?project_id=" + project).json().get("data")).hasSize(1); // no rebuild

            // refused: out of range, or not a number; the count stays as it was
            for (String bad : List.of("{\"replicas\":0}", "{\"replicas\":11}", "{\"replicas\":\"two\"}", "{\"replicas\":1.5}")) {
                var r = http.send("PATCH", "/v1/projects/" + project, "application/json", bad.getBytes(StandardCharsets.UTF_8));
                assertThat(r.status()).as(bad + ": " + r.body()).isEqualTo(400);
                assertThat(r.body()).contains("replicas").contains("whole number from 1 to 10");
            }
            assertThat(http.get("/v1/projects/" + project).json().at("/data/replicas").asInt()).isEqualTo(1);
            var over = http.send("PATCH", "/v1/projects/" + project, "application/json", "{\"replicas\":6}".getBytes(StandardCharsets.UTF_8));
            assertThat(over.status()).as(over.body()).isEqualTo(400);
            assertThat(over.body()).contains("is over the pro tier's 5 instances");

            // the project's count wins over the file's; a deploy under load fails no request
            patch(http, project, "{\"replicas\":2}");
            Await.until(WAIT, "two instances", () -> webProcesses(http, deployment).size() == 2);
            Loop during = Loop.start(url, 2, 100_000);
            var second = http.post("/v1/deployments", "{\"project_id\":\"" + project + "\",\"upload_id\":\"" + upload(http, app("two")) + "\"}");
            String next = second.json().at("/data/id").asText();
            Statuses.await(http, "deployments", next, "live", RUN);
            Await.until(WAIT, "requests to reach the new version", () -> "two".equals(Apps.get(url + "/version").body()));
            during.halt();
            assertThat(during.failures()).as("requests that failed during the deploy").isEmpty();
            assertThat(during.done.get()).isPositive();
            assertThat(webProcesses(http, next)).containsExactly("web running", "web.2 running");
            patch(http, project, "{\"replicas\":null}"); // cleared: the file's count from the next change on
            assertThat(http.get("/v1/projects/" + project).json().at("/data/replicas").isNull()).isTrue();

            // the free tier runs one instance: a file that asks for two fails its deployment, saying why
            Http free = server.tenant(Tier.FREE, 1_000_000).http();
            var migration = free.post("/v1/migrations", "{\"source\":\"zip\",\"framework\":\"node\",\"upload_id\":\"" + upload(free, app("free")) + "\"}");
            JsonNode failed = Statuses.await(free, "migrations", migration.json().at("/data/id").asText(), "failed", RUN);
            String refused = free.get("/v1/deployments?project_id=" + failed.get("project_id").asText()).json().at("/data/0/id").asText();
            assertThat(free.get("/v1/deployments/" + refused + "/logs?limit=500").body())
                    .contains("Cannot run 2 instances of web (slipway.toml [run] replicas): the free tier runs at most 1");
        }
    }

    /** The deployment's web instances as "type state". */
    private static List<String> webProcesses(Http http, String deployment) {
        List<String> out = new ArrayList<>();
        http.get("/v1/deployments/" + deployment).json().at("/data/processes").forEach(p -> {
            if (p.get("type").asText().startsWith("web")) out.add(p.get("type").asText() + " " + p.get("state").asText());
        });
        return out;
    }

    /** The instances that answered {@code n} requests one after another. */
    private static Set<String> ids(String url, int n) {
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < n; i++) {
            var r = Apps.get(url + "/");
            if (r.status() == 200) ids.add(r.body());
        }
        return ids;
    }

    private static JsonNode patch(Http http, String project, String json) {
        var r = http.send("PATCH", "/v1/projects/" + project, "application/json", json.getBytes(StandardCharsets.UTF_8));
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.json().get("data");
    }

    private static String upload(Http http, Map<String, String> files) {
        var r = http.send("POST", "/v1/uploads", "application/zip", Zips.of(files));
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().at("/data/id").asText();
    }

    /** Threads sending GETs one after another, each up to a count or until stopped; every answer that is not a 200 is kept. */
    private record Loop(ExecutorService pool, List<Future<?>> futures, ConcurrentLinkedQueue<String> failed,
                        AtomicInteger done, CountDownLatch halfway, AtomicBoolean stop) {
        static Loop start(String url, int threads, int each) {
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            ConcurrentLinkedQueue<String> failed = new ConcurrentLinkedQueue<>();
            AtomicInteger done = new AtomicInteger();
            CountDownLatch halfway = new CountDownLatch(threads * Math.min(each, 50));
            AtomicBoolean stop = new AtomicBoolean();
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < each && !stop.get(); i++) {
                        var r = Apps.get(url + "/");
                        if (r.status() != 200) failed.add(r.status() + " " + r.body());
                        done.incrementAndGet();
                        halfway.countDown();
                    }
                }));
            }
            return new Loop(pool, futures, failed, done, halfway, stop);
        }

        void halt() {
            stop.set(true);
        }

        List<String> failures() throws Exception {
            for (Future<?> f : futures) f.get();
            pool.shutdown();
            return List.copyOf(failed);
        }
    }
}
