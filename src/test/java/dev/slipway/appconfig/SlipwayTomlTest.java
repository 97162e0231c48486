package dev.slipway.appconfig;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.dashboard.WebClient;
import dev.slipway.isolation.IsolationMode;
import dev.slipway.server.Slipway;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Apps;
import dev.slipway.testing.Await;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.OffsetClock;
import dev.slipway.testing.Statuses;
import dev.slipway.testing.TestServer;
import dev.slipway.testing.Zips;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A repository that describes its service in {@code slipway.toml}: its build and start commands, its health check on
 * its own path (its {@code /} answers 500), a default variable, a volume that keeps a file across a deploy and a
 * rollback, and a cron job that runs once a minute on one of two servers sharing the store (a test clock moved a minute
 * at a time), writing into the volume; and a repository whose file has mistakes, whose deployment fails naming each line.
 */
@EachStore
@EndToEnd
class SlipwayTomlTest {
    private static final Duration RUN = Duration.ofMinutes(3);
    static final String TOML = """
            [build]
            command = "echo built-by-toml > built.txt"
            [run]
            command = "node server.js"
            [health]
            path = "/healthz"
            [env]
            GREETING = "from-toml"
            [processes]
            clock = "node clock.js"
            [[cron]]
            name = "tick"
            schedule = "* * * * *"
            command = "node tick.js"
            [[cron]]
            name = "bomb"
            schedule = "* * * * *"
            command = "node bomb.js"
            [[volumes]]
            name = "data"
            path = "/data"
            size_mb = 16
            """;

    private final Dialect kind;

    SlipwayTomlTest(Dialect kind) {
        this.kind = kind;
    }

    static Map<String, String> app(String version) {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("package.json", """
                {"name": "toml-app", "version": "1.0.0", "private": true, "scripts": {"start": "node not-this.js"}}
                """);
        files.put("slipway.toml", TOML);
        files.put("server.js", """
                const http = require("http");
                const fs = require("fs");
                http.createServer((req, res) => {
                  const read = f => { try { return fs.readFileSync(f, "utf8").trim(); } catch (e) { return e.code; } };
                  if (req.url === "/healthz") return res.end("ok");
                  if (req.url === "/built") return res.end(read(__dirname + "/built.txt"));
                  if (req.url === "/env") return res.end(process.env.GREETING || "-");
                  if (req.url === "/version") return res.end("%s");
                  if (req.url.startsWith("/keep")) { fs.writeFileSync("/data/kept", "%s"); return res.end("kept"); }
                  if (req.url === "/kept") return res.end(read("/data/kept"));
                  if (req.url === "/ticks") return res.end(read("/data/ticks"));
                  if (req.url === "/clock") return res.end(read("/data/clock"));
                  res.statusCode = 500;
                  res.end("the root path fails: only /healthz says how the app is");
                }).listen(Number(process.env.PORT), "127.0.0.1");
                """.formatted(version, version));
        // hostile: forks as much as it can; its cell's process limit holds, and it reports what it got
        files.put("bomb.js", """
                const { spawn } = require("child_process");
                let started = 0, refused = 0;
                for (let i = 0; i < 300; i++) {
                  try {
                    const c = spawn("sleep", ["30"]);
                    c.on("spawn", () => started++);
                    c.on("error", () => refused++);
                  } catch (e) { refused++; }
                }
                setTimeout(() => { console.log("bomb started " + started + " refused " + refused); process.exit(0); }, 2000);
                """);
        // a process of [processes]: it runs beside the app, with its volume
        files.put("clock.js", """
                setInterval(() => require("fs").writeFileSync("/data/clock", "clock " + process.env.GREETING), 300);
                """);
        files.put("tick.js", """
                require("fs").appendFileSync("/data/ticks", "tick " + process.env.GREETING + "\\n");
                console.log("tick ran");
                """);
        return files;
    }

    private static String get(String url) {
        var r = Apps.get(url);
        assertThat(r.status()).as(url + ": " + r.body()).isEqualTo(200);
        return r.body();
    }

    @Test
    void aRepositoryDescribesItsServiceAndSlipwayRunsItWithHealthVolumeAndCronOnOneOfTwoServers() {
        OffsetClock clock = new OffsetClock();
        try (TestServer server = TestServer.start(kind, c -> c.isolation(IsolationMode.SANDBOX), clock)) {
            TestServer.Tenant tenant = server.tenant(Tier.FREE, 1_000_000); // the starter type: at most 64 processes in a cell; the waits poll
            Http http = tenant.http();
            JsonNode done = Statuses.migrateZip(http, app("one"));
            String project = done.get("project_id").asText();
            String url = done.get("url").asText();
            assertThat(get(url + "/built")).isEqualTo("built-by-toml");
            assertThat(get(url + "/env")).isEqualTo("from-toml");
            Await.until(RUN, "the clock process of [processes] to write", () -> "clock from-toml".equals(Apps.get(url + "/clock").body()));
            JsonNode first = http.get("/v1/deployments/" + done.get("deployment_id").asText()).json().get("data");
            assertThat(first.at("/config/run/command").asText()).isEqualTo("node server.js");
            assertThat(first.at("/config/cron/0/schedule").asText()).isEqualTo("* * * * *");
            assertThat(first.at("/config/volumes/0/size_mb").asInt()).isEqualTo(16);
            assertThat(http.get("/v1/deployments/" + first.get("id").asText() + "/logs?limit=500").body())
                    .contains("Read slipway.toml").contains("Running the build command of slipway.toml")
                    .contains("slipway.toml [run] command: it is the start command").contains("processes: clock");
            assertThat(http.get("/v1/deployments/" + first.get("id").asText()).json().at("/data/processes").toString())
                    .contains("{\"type\":\"clock\",\"state\":\"running\"");

            // a file in the volume outlives a deploy and a rollback
            assertThat(get(url + "/keep")).isEqualTo("kept");
            String upload = upload(http, app("two"));
            var second = http.post("/v1/deployments", "{\"project_id\":\"" + project + "\",\"upload_id\":\"" + upload + "\"}");
            Statuses.await(http, "deployments", second.json().at("/data/id").asText(), "live", RUN);
            assertThat(get(url + "/version")).isEqualTo("two");
            assertThat(get(url + "/kept")).isEqualTo("one");
            var rollback = http.send("POST", "/v1/deployments/" + first.get("id").asText() + "/rollback", null, null);
            Statuses.await(http, "deployments", rollback.json().at("/data/id").asText(), "live", RUN);
            assertThat(get(url + "/version")).isEqualTo("one");
            assertThat(get(url + "/kept")).isEqualTo("one");

            // the cron job, on two servers sharing the store where it can: one run a minute, written into the volume
            Slipway peer = kind == Dialect.POSTGRES ? server.startPeer(clock) : null;
            try {
                for (int minute = 1; minute <= 2; minute++) {
                    clock.advance(Duration.ofSeconds(60));
                    int runs = minute;
                    Await.until(RUN, "cron run " + minute, () -> succeeded(http, project, "tick") >= runs
                            && finished(http, project, "bomb") >= runs);
                }
                // the test's clock runs on as well: a real minute may bring a run of its own (or a skipped one, when it comes
                // while a run still runs, or a missed one, when the clock's jump passed over it), never a second of one time
                String ticks = get(url + "/ticks");
                List<JsonNode> all = cronRuns(http, project);
                List<JsonNode> runs = all.stream().filter(r -> r.get("name").asText().equals("tick")).toList();
                assertThat(runs.stream().filter(r -> r.get("status").asText().equals("succeeded"))).hasSizeGreaterThanOrEqualTo(2)
                        .allMatch(r -> r.get("exit_code").asInt() == 0);
                assertThat(runs).allMatch(r -> List.of("succeeded", "running", "skipped", "missed").contains(r.get("status").asText()));
                assertThat(runs.stream().map(r -> r.get("scheduled_for").asText()).distinct()).as("once per time").hasSize(runs.size());
                assertThat(ticks.split("\n")).hasSizeGreaterThanOrEqualTo(2).containsOnly("tick from-toml");
                // what the fork bomb got, in the runs that reported it (one that the limit stops before it prints may fail); its
                // children sleep on after it prints, so a run may still be running, and the times after it are skipped
                List<String> reports = new ArrayList<>();
                Await.until(RUN, "the fork bomb's report", () -> {
                    reports.clear();
                    for (JsonNode b : cronRuns(http, project)) {
                        if (!b.get("name").asText().equals("bomb") || b.get("started_at").isNull()) continue;
                        String bombLog = http.get(b.get("logs_url").asText().replaceFirst("^https?://[^/]+", "") + "?limit=100").body();
                        java.util.regex.Matcher got = java.util.regex.Pattern.compile("bomb started (\\d+) refused (\\d+)").matcher(bombLog);
                        if (got.find()) reports.add(got.group(1) + " " + got.group(2));
                    }
                    return !reports.isEmpty();
                });
                assertThat(reports).as("the fork bomb's reports").isNotEmpty().allSatisfy(r -> {
                    assertThat(Integer.parseInt(r.split(" ")[0])).as("processes it got").isLessThan(64);
                    assertThat(Integer.parseInt(r.split(" ")[1])).as("forks refused").isPositive();
                });
                assertThat(http.get("/v1/projects/" + project).status()).as("the server is unharmed").isEqualTo(200);

                // the project's page shows them
                String email = "toml-" + System.nanoTime() + "@example.com";
                server.slipway().users().create(tenant.account().id(), email, "a long enough password 42");
                WebClient web = new WebClient(server.baseUrl());
                assertThat(web.signIn(email, "a long enough password 42").statusCode()).isEqualTo(303);
                String page = web.get("/dashboard/projects/" + project).body();
                assertThat(page).contains("<h2>slipway.toml</h2>").contains("<dt>Instances of web</dt><dd>1</dd>").contains("<code>GET /healthz</code> answers 200-399")
                        .contains("<code>data</code> at <code>/data</code> (16 MB)").contains("<code>tick</code> <code>* * * * *</code> UTC")
                        .contains("<dt>Processes</dt><dd><code>clock</code>: <code>node clock.js</code>")
                        .contains("Latest cron runs").contains("data-cron-status=\"succeeded\"");

                // the newest run may be one the real minute just started: read a finished one
                JsonNode ran = runs.stream().filter(r -> r.get("status").asText().equals("succeeded")).findFirst().orElseThrow();
                assertThat(http.get(ran.get("logs_url").asText().replaceFirst("^https?://[^/]+", "") + "?limit=100").body())
                        .contains("tick ran");
            } finally {
                if (peer != null) peer.close();
            }
        }
    }

    @Test
    void aFileWithMistakesFailsTheDeploymentNamingEachLineAndTheProjectsHealthCheckWinsOverTheFiles() {
        try (TestServer server = TestServer.start(kind, c -> c.healthTimeout(Duration.ofSeconds(3)))) {
            Http http = server.tenant(Tier.TEAM).http();
            Map<String, String> files = app("bad");
            files.put("slipway.toml", """
                    [run]
                    comand = "node server.js"
                    replicas = 99
                    [[cron]]
                    name = "never"
                    schedule = "0 0 31 2 *"
                    command = "true"
                    [[volumes]]
                    name = "root"
                    path = "/"
                    size_mb = 10
                    """);
            String upload = upload(http, files);
            var migration = http.post("/v1/migrations", "{\"source\":\"zip\",\"framework\":\"node-express\",\"upload_id\":\"" + upload + "\"}");
            JsonNode failed = Statuses.await(http, "migrations", migration.json().at("/data/id").asText(), "failed", RUN);
            String deployment = http.get("/v1/deployments?project_id=" + failed.get("project_id").asText()).json().at("/data/0/id").asText();
            String log = http.get("/v1/deployments/" + deployment + "/logs?limit=500").body();
            assertThat(log).contains("slipway.toml line 2: unknown key `comand` in run")
                    .contains("slipway.toml line 3: run.replicas must be between 1 and 10, got 99")
                    .contains("slipway.toml line 6: cron[0].schedule `0 0 31 2 *` never fires")
                    .contains("slipway.toml line 10: volumes[0].path cannot be /");
            assertThat(http.get("/v1/deployments/" + deployment).json().at("/data/status").asText()).isEqualTo("failed");

            // the project's own health check (PATCH) wins over the file's: here one its app never passes
            String project = failed.get("project_id").asText();
            for (String bad : List.of("{\"health_check\":{\"path\":\"healthz\"}}", "{\"health_check\":{\"path\":\"/\",\"status\":\"600\"}}",
                    "{\"health_check\":{\"path\":\"/\",\"failures\":0}}", "{\"health_check\":{\"path\":\"/\",\"every\":1}}",
                    "{\"health_check\":\"/\"}")) {
                var r = http.send("PATCH", "/v1/projects/" + project, "application/json", bad.getBytes());
                assertThat(r.status()).as(bad + " " + r.body()).isEqualTo(400);
            }
            var patched = http.send("PATCH", "/v1/projects/" + project, "application/json",
                    "{\"health_check\":{\"path\":\"/\",\"status\":\"200\",\"failures\":2}}".getBytes());
            assertThat(patched.status()).as(patched.body()).isEqualTo(200);
            assertThat(patched.json().at("/data/health_check/status").asText()).isEqualTo("200");
            assertThat(patched.json().at("/data/health_check/interval_seconds").asInt()).isEqualTo(10);
            var next = http.post("/v1/deployments", "{\"project_id\":\"" + project + "\",\"upload_id\":\"" + upload(http, app("good")) + "\"}");
            JsonNode refused = Statuses.await(http, "deployments", next.json().at("/data/id").asText(), "failed", RUN);
            assertThat(http.get("/v1/deployments/" + refused.get("id").asText() + "/logs?limit=500").body())
                    .contains("it answered HTTP 500 on / (its health check wants 200-200)");
            var cleared = http.send("PATCH", "/v1/projects/" + project, "application/json", "{\"health_check\":null}".getBytes());
            assertThat(cleared.json().at("/data/health_check").isNull()).as(cleared.body()).isTrue();
        }
    }

    private static String upload(Http http, Map<String, String> files) {
        var r = http.send("POST", "/v1/uploads", "application/zip", Zips.of(files));
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().at("/data/id").asText();
    }

    private static List<JsonNode> cronRuns(Http http, String project) {
        List<JsonNode> out = new ArrayList<>();
        http.get("/v1/projects/" + project + "/cron-runs").json().get("data").forEach(out::add);
        return out;
    }

    private static long succeeded(Http http, String project, String job) {
        return cronRuns(http, project).stream().filter(r -> r.get("name").asText().equals(job)
                && r.get("status").asText().equals("succeeded")).count();
    }

    private static long finished(Http http, String project, String job) {
        return cronRuns(http, project).stream().filter(r -> r.get("name").asText().equals(job)
                && !r.get("status").asText().equals("running")).count();
    }
}
