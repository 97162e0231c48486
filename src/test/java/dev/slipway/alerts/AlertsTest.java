package dev.slipway.alerts;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
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
import dev.slipway.testing.WebhookReceiver;
import dev.slipway.usage.UsageSampler;
import dev.slipway.webhooks.WebhookSettings;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Alerts that reach people: an app in a crash loop sends one Slack message, and one when it has recovered; an app whose
 * requests mostly fail sends one Discord message, and one when they succeed again. Receivers on loopback play Slack's
 * and Discord's incoming webhooks; each gets exactly the body those take. The app asks a control server on loopback
 * whether to crash at its start (it runs unconfined, to reach it).
 */
@EachStore
@EndToEnd
class AlertsTest {
    private static final Duration WAIT = Duration.ofSeconds(90);
    private final Dialect kind;

    AlertsTest(Dialect kind) {
        this.kind = kind;
    }

    static Map<String, String> app(int control) {
        return Map.of(
                "package.json", "{\"name\": \"alert-app\", \"version\": \"1.0.0\", \"private\": true, \"scripts\": {\"start\": \"node server.js\"}}\n",
                "server.js", """
                        const http = require("http");
                        http.createServer((req, res) => {
                          if (req.url === "/crash") { res.end("crashing"); return setImmediate(() => process.exit(1)); }
                          if (req.url === "/fail") { res.statusCode = 500; return res.end("failed"); }
                          res.end("ok");
                        }).listen(Number(process.env.PORT), "127.0.0.1", () => {
                          http.get("http://127.0.0.1:%d/mode", r => {
                            let mode = "";
                            r.on("data", c => mode += c);
                            r.on("end", () => { if (mode === "crash") setTimeout(() => process.exit(1), 300); });
                          }).on("error", () => {});
                        });
                        """.formatted(control));
    }

    @Test
    void aCrashLoopAndFailingRequestsEachSendOneMessageAndOneWhenTheyAreOver() throws Exception {
        AtomicReference<String> mode = new AtomicReference<>("ok");
        HttpServer control = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        control.createContext("/mode", x -> {
            byte[] b = mode.get().getBytes(StandardCharsets.UTF_8);
            x.sendResponseHeaders(200, b.length);
            x.getResponseBody().write(b);
            x.close();
        });
        control.start();
        try (WebhookReceiver receiver = WebhookReceiver.start();
             TestServer server = TestServer.start(kind, c -> c.isolation(IsolationMode.NONE)
                     .webhooks(new WebhookSettings(true, List.of(Duration.ofMillis(300), Duration.ofMillis(300))))
                     .backoff(Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ofSeconds(2)))) {
            Http http = server.tenant(Tier.PRO, 1_000_000).http();
            var slack = http.post("/v1/webhooks", "{\"url\":\"" + receiver.url("/slack") + "\",\"format\":\"slack\","
                    + "\"events\":[\"app.crash_loop\",\"app.crash_loop.resolved\"]}");
            assertThat(slack.status()).as(slack.body()).isEqualTo(201);
            assertThat(slack.json().at("/data/format").asText()).isEqualTo("slack");
            var discord = http.post("/v1/webhooks", "{\"url\":\"" + receiver.url("/discord") + "\",\"format\":\"discord\","
                    + "\"events\":[\"app.errors\",\"app.errors.resolved\"]}");
            assertThat(discord.status()).as(discord.body()).isEqualTo(201);
            var bad = http.post("/v1/webhooks", "{\"url\":\"" + receiver.url("/x") + "\",\"format\":\"teams\",\"events\":[\"*\"]}");
            assertThat(bad.status()).as(bad.body()).isEqualTo(400);

            JsonNode done = Statuses.migrateZip(http, app(control.getAddress().getPort()));
            String url = done.get("url").asText();
            String name = http.get("/v1/projects/" + done.get("project_id").asText()).json().at("/data/name").asText();
            UsageSampler sampler = server.slipway().usage();

            // a crash loop: every start crashes, until the control server says otherwise
            mode.set("crash");
            Apps.get(url + "/crash");
            Await.until(WAIT, "the crash loop's message", () -> {
                sampler.sample();
                return !texts(receiver, "/slack", "text").isEmpty();
            });
            assertThat(texts(receiver, "/slack", "text")).singleElement().asString()
                    .startsWith("[FIRING] " + name + ": crash loop (its processes crashed ");
            mode.set("ok");
            Await.until(WAIT, "the recovery's message", () -> {
                sampler.sample();
                return texts(receiver, "/slack", "text").size() == 2;
            });
            for (int i = 0; i < 3; i++) sampler.sample(); // quiet now: no message more
            List<String> slackTexts = texts(receiver, "/slack", "text");
            assertThat(slackTexts).hasSize(2);
            assertThat(slackTexts.get(1)).startsWith("[RESOLVED] " + name + ": crash loop is over after ");
            receiver.received("/slack").forEach(r -> assertThat(r.json().properties()).hasSize(1)); // {"text"} only, as Slack takes

            // most requests failing, then succeeding again
            sampler.sample();
            // 30: should the server's own sampler split them, one part still holds at least the 10 a judgement needs
            for (int i = 0; i < 30; i++) Apps.get(url + "/fail");
            Await.until(WAIT, "the failing requests' message", () -> {
                sampler.sample();
                return !texts(receiver, "/discord", "content").isEmpty();
            });
            assertThat(texts(receiver, "/discord", "content")).singleElement().asString()
                    .matches("\\[FIRING\\] " + name + ": failing requests \\((\\d+) of \\1 requests answered 5xx\\)");
            for (int i = 0; i < 30; i++) assertThat(Apps.get(url + "/").status()).isEqualTo(200);
            Await.until(WAIT, "the end of the failures' message", () -> {
                sampler.sample();
                return texts(receiver, "/discord", "content").size() == 2;
            });
            assertThat(texts(receiver, "/discord", "content").get(1)).startsWith("[RESOLVED] " + name + ": failing requests is over");
            assertThat(texts(receiver, "/slack", "text")).as("the Slack endpoint did not subscribe to errors").hasSize(2);
        } finally {
            control.stop(0);
        }
    }

    private static List<String> texts(WebhookReceiver receiver, String path, String field) {
        return receiver.received(path).stream().map(r -> r.json().path(field).asText()).toList();
    }
}
