package dev.slipway.drains;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.core.Json;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Apps;
import dev.slipway.testing.Await;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.Statuses;
import dev.slipway.testing.SyslogReceiver;
import dev.slipway.testing.TestServer;
import dev.slipway.testing.WebhookReceiver;
import dev.slipway.webhooks.WebhookSettings;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A project's logs and request log reach a syslog receiver and an HTTPS-style NDJSON receiver on loopback: every line
 * once and in order, also after both were down for a while; a project that floods its log is shipped in bounded
 * batches while another project's lines go out at once; escape sequences arrive escaped; the URL's token is never shown;
 * another tenant can neither read nor add a drain.
 */
@EachStore
@EndToEnd
class LogDrainsTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final Pattern SAID = Pattern.compile("said (\\d+)");
    private final Dialect kind;

    LogDrainsTest(Dialect kind) {
        this.kind = kind;
    }

    private static Map<String, String> app(String name) {
        return Map.of(
                "package.json", "{\"name\": \"" + name + "\", \"version\": \"1.0.0\", \"private\": true, \"scripts\": {\"start\": \"node server.js\"}}\n",
                "server.js", """
                        require("http").createServer((req, res) => {
                          const u = new URL(req.url, "http://x");
                          if (u.pathname === "/say") { console.log("said " + u.searchParams.get("n")); return res.end("ok"); }
                          if (u.pathname === "/evil") { console.log("\\u001b]52;c;Zm9v\\u0007clip \\u001b[31mred"); return res.end("ok"); }
                          if (u.pathname === "/flood") { for (let i = 0; i < 30000; i++) console.log("flood " + i); return res.end("ok"); }
                          res.end("ok");
                        }).listen(Number(process.env.PORT), "127.0.0.1");
                        """);
    }

    @Test
    void logsReachSyslogAndHttpsOnceInOrderThroughAnOutageAndAFloodDelaysNoOtherProject() throws Exception {
        try (TestServer server = TestServer.start(kind, c -> c.webhooks(new WebhookSettings(true, WebhookSettings.DEFAULT_RETRIES)));
             SyslogReceiver syslog = SyslogReceiver.start();
             WebhookReceiver https = WebhookReceiver.start()) {
            Map<String, List<JsonNode>> accepted = new ConcurrentHashMap<>();
            List<Integer> batchSizes = new CopyOnWriteArrayList<>();
            java.util.concurrent.atomic.AtomicBoolean down = new java.util.concurrent.atomic.AtomicBoolean();
            https.answer(r -> {
                if (down.get()) return 503;
                String[] lines = r.body().split("\n");
                batchSizes.add(lines.length);
                for (String l : lines) accepted.computeIfAbsent(r.header("x-receiver-path"), k -> new CopyOnWriteArrayList<>()).add(json(l));
                return 200;
            });
            Http http = server.tenant(Tier.PRO).http();
            JsonNode a = Statuses.migrateZip(http, app("drained"));
            JsonNode b = Statuses.migrateZip(http, app("flooder"));
            String project = a.get("project_id").asText(), url = a.get("url").asText();
            String drains = "/v1/projects/" + project + "/log-drains";

            for (String bad : List.of("{\"url\":\"ftp://127.0.0.1/\"}", "{\"url\":\"syslog://127.0.0.1:514/path\"}",
                    "{\"url\":\"https://user:pw@127.0.0.1/\"}", "{\"url\":\"https://127.0.0.1/\",\"sources\":[\"app\"]}",
                    "{\"url\":\"https://127.0.0.1/\",\"sources\":[]}", "{\"url\":\"https://127.0.0.1/\",\"extra\":1}", "{}", "[]")) {
                var r = http.post(drains, bad);
                assertThat(r.status()).as(bad + " " + r.body()).isEqualTo(400);
                assertThat(r.json().at("/error/code").asText()).as(bad).isNotEmpty();
            }
            var toSyslog = http.post(drains, "{\"url\":\"" + syslog.url() + "\",\"sources\":[\"logs\"]}");
            assertThat(toSyslog.status()).as(toSyslog.body()).isEqualTo(201);
            assertThat(toSyslog.json().at("/data/kind").asText()).isEqualTo("syslog");
            var toHttps = http.post(drains, "{\"url\":\"" + https.url("/a") + "?token=s3cret-token\"}");
            assertThat(toHttps.status()).as(toHttps.body()).isEqualTo(201);
            assertThat(toHttps.body()).doesNotContain("s3cret-token").contains("token=***");
            assertThat(toHttps.json().at("/data/sources").toString()).isEqualTo("[\"logs\",\"requests\"]");
            String listed = http.get(drains).body();
            assertThat(listed).doesNotContain("s3cret-token").contains(toSyslog.json().at("/data/id").asText());
            var other = http.post("/v1/projects/" + b.get("project_id").asText() + "/log-drains", "{\"url\":\"" + https.url("/b") + "\"}");
            assertThat(other.status()).isEqualTo(201);

            // another tenant reads, adds and deletes nothing
            Http stranger = server.tenant(Tier.PRO).http();
            assertThat(stranger.get(drains).status()).isEqualTo(403);
            assertThat(stranger.post(drains, "{\"url\":\"" + https.url("/stolen") + "\"}").status()).isEqualTo(403);
            assertThat(stranger.send("DELETE", drains + "/" + toSyslog.json().at("/data/id").asText(), null, null).status()).isEqualTo(403);

            for (int i = 0; i < 20; i++) assertThat(Apps.get(url + "/say?n=" + i).status()).isEqualTo(200);
            Await.until(WAIT, "the first 20 lines at both receivers", () -> said(syslog.messages()).size() >= 20
                    && said(messages(accepted.get("/a"))).size() >= 20);
            assertThat(said(syslog.messages())).containsExactlyElementsOf(range(0, 20));
            assertThat(said(messages(accepted.get("/a")))).containsExactlyElementsOf(range(0, 20));
            Await.until(WAIT, "the request lines", () -> requests(accepted.get("/a"), "/say").size() >= 20);
            JsonNode request = requests(accepted.get("/a"), "/say").getFirst();
            assertThat(request.get("method").asText()).isEqualTo("GET");
            assertThat(request.get("status").asInt()).isEqualTo(200);
            assertThat(request.get("deployment_id").asText()).isEqualTo(a.get("deployment_id").asText());
            assertThat(accepted.get("/a").toString()).as("the query is not kept").doesNotContain("n=1");
            assertThat(syslog.messages().stream().filter(m -> m.contains("said 0")).findFirst().orElseThrow())
                    .matches("<1[1-4]>1 \\S+ \\S+ " + project + " dep_\\S+ log - .*said 0");

            // both receivers go down for a while: the lines wait in the store, and arrive once each when they are back
            down.set(true);
            syslog.down();
            for (int i = 20; i < 30; i++) assertThat(Apps.get(url + "/say?n=" + i).status()).isEqualTo(200);
            Await.until(WAIT, "both drains to show their failure", () -> {
                JsonNode list = http.get(drains).json().get("data");
                return !list.get(0).get("failing_since").isNull() && !list.get(1).get("failing_since").isNull();
            });
            assertThat(http.get(drains).json().at("/data/0/last_error").asText()).isNotEmpty();
            syslog.up();
            down.set(false);
            Await.until(WAIT, "the lines of the outage", () -> said(syslog.messages()).size() >= 30
                    && said(messages(accepted.get("/a"))).size() >= 30);
            assertThat(said(syslog.messages())).as("syslog, once each, in order").containsExactlyElementsOf(range(0, 30));
            assertThat(said(messages(accepted.get("/a")))).as("https, once each, in order").containsExactlyElementsOf(range(0, 30));
            Await.until(WAIT, "the drains to recover", () -> http.get(drains).json().at("/data/0/failing_since").isNull()
                    && http.get(drains).json().at("/data/1/failing_since").isNull());

            // a flood in one project: its drain ships bounded batches, the other project's lines go out at once
            assertThat(Apps.get(b.get("url").asText() + "/flood").status()).isEqualTo(200);
            assertThat(Apps.get(url + "/say?n=30").status()).isEqualTo(200);
            assertThat(Apps.get(url + "/evil").status()).isEqualTo(200);
            Await.until(WAIT, "the other project's line during the flood", () -> said(messages(accepted.get("/a"))).contains(30));
            assertThat(batchSizes).as("lines per batch").allMatch(n -> n <= 2 * DrainShipper.BATCH);
            Await.until(WAIT, "the escape sequence line", () -> messages(accepted.get("/a")).stream().anyMatch(m -> m.contains("clip")));
            String evil = messages(accepted.get("/a")).stream().filter(m -> m.contains("clip")).findFirst().orElseThrow();
            assertThat(evil).doesNotContain("\u001b").doesNotContain("\u0007").contains("red");
            Await.until(WAIT, "the escape sequence line over syslog", () -> syslog.messages().stream().anyMatch(m -> m.contains("clip")));
            assertThat(syslog.messages().stream().filter(m -> m.contains("clip")).findFirst().orElseThrow()).doesNotContain("\u001b");

            // deleted: nothing more is sent to it
            assertThat(http.send("DELETE", drains + "/" + toSyslog.json().at("/data/id").asText(), null, null).status()).isEqualTo(204);
            assertThat(http.get(drains).json().get("data").size()).isEqualTo(1);
        }
    }

    private static JsonNode json(String line) {
        try {
            return Json.MAPPER.readTree(line);
        } catch (java.io.IOException e) {
            throw new AssertionError("not a JSON line: " + line, e);
        }
    }

    private static List<String> messages(List<JsonNode> lines) {
        return lines == null ? List.of() : lines.stream().filter(l -> l.get("source").asText().equals("logs"))
                .map(l -> l.get("message").asText()).toList();
    }

    private static List<JsonNode> requests(List<JsonNode> lines, String path) {
        return lines == null ? List.of() : lines.stream().filter(l -> l.get("source").asText().equals("requests")
                && l.get("path").asText().equals(path)).toList();
    }

    private static List<Integer> said(List<String> messages) {
        List<Integer> out = new ArrayList<>();
        for (String m : messages) {
            Matcher got = SAID.matcher(m);
            if (got.find() && !m.contains("GET /say")) out.add(Integer.parseInt(got.group(1)));
        }
        return out;
    }

    private static List<Integer> range(int from, int to) {
        List<Integer> out = new ArrayList<>();
        for (int i = from; i < to; i++) out.add(i);
        return out;
    }
}
