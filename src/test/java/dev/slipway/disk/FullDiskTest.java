package dev.slipway.disk;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.core.MicrosClock;
import dev.slipway.dashboard.WebClient;
import dev.slipway.pipeline.NodeApp;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Apps;
import dev.slipway.testing.Await;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.SmallDisk;
import dev.slipway.testing.Statuses;
import dev.slipway.testing.TestServer;
import dev.slipway.testing.TestStore;
import dev.slipway.testing.WebhookReceiver;
import dev.slipway.testing.Zips;
import dev.slipway.webhooks.WebhookSettings;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The data dir on a small filesystem of the test's own (a tmpfs), filled to the last byte while an app serves: new work
 * is refused with 507 naming the disk, nothing answers 500, the app keeps serving and {@code /readyz} says {@code disk};
 * once the space is freed everything works again without a restart, and nothing stored before is lost.
 */
@EndToEnd
class FullDiskTest {
    private static final Duration DEADLINE = Duration.ofSeconds(90);
    private static final String PASSWORD = "a password long enough for the dashboard";

    @Test
    void aFullDiskRefusesNewWorkClearlyKeepsServingAndHealsWithoutARestart() throws Exception {
        try (SmallDisk disk = SmallDisk.mount(384); WebhookReceiver receiver = WebhookReceiver.start();
             TestServer server = TestServer.start(TestStore.create(Dialect.H2, disk.path()), c -> c.disk(DiskSettings.parse("48MiB"))
                     .webhooks(new WebhookSettings(true, List.of(Duration.ofMillis(300)))), MicrosClock.system())) {
            TestServer.Tenant operator = server.tenant(Tier.TEAM); // the store's first account
            Http http = operator.http();
            var hook = http.post("/v1/webhooks", "{\"url\":\"" + receiver.url("/ops") + "\",\"events\":[\"disk.low\",\"disk.recovered\"]}");
            assertThat(hook.status()).as(hook.body()).isEqualTo(201);
            JsonNode done = Statuses.migrateZip(http, NodeApp.version("before"));
            String url = done.get("url").asText();
            String project = done.get("project_id").asText();
            assertThat(Apps.get(url).body()).startsWith("app:before");
            String name = http.get("/v1/projects/" + project).json().at("/data/name").asText();

            // the disk passes its reserve first (the operator is told while the store can still write), then fills up
            Path filler = server.store().dataDir().resolve("filler");
            long filled = SmallDisk.fill(filler, 8L << 20);
            assertThat(server.anonymous().get("/readyz").status()).isEqualTo(503);
            var low = receiver.await(DEADLINE, "disk.low", r -> r.type().equals("disk.low"));
            assertThat(low.json().at("/data/reserve_bytes").asLong()).isEqualTo(48L << 20);
            server.slipway().users().create(operator.account().id(), "ops@example.com", PASSWORD);
            WebClient web = new WebClient(server.baseUrl());
            assertThat(web.signIn("ops@example.com", PASSWORD).statusCode()).isEqualTo(303);
            assertThat(web.get("/dashboard/projects").body()).as("the dashboard's banner")
                    .contains("New deployments are refused: the disk of ").contains("free, below the 48 MiB kept");
            Path last = server.store().dataDir().resolve("filler-last");
            filled += SmallDisk.fill(last, 0);
            System.out.println("[measure] filled the data dir's disk with " + filled / (1 << 20) + " MiB, to the last byte");
            assertThat(Files.getFileStore(last).getUsableSpace()).isZero();
            assertThat(server.anonymous().get("/metrics").body()).contains("slipway_disk_free_bytes 0.0");

            assertThat(Apps.get(url).body()).as("the app serves on a full disk").startsWith("app:before");
            var refused = http.send("POST", "/v1/uploads", "application/zip", Zips.of(NodeApp.version("after")));
            assertThat(refused.status()).as(refused.body()).isEqualTo(507);
            assertThat(refused.json().at("/error/code").asText()).isEqualTo("insufficient_storage");
            assertThat(refused.json().at("/error/message").asText()).contains("disk").contains("free");
            var deploy = http.post("/v1/deployments", "{\"project_id\":\"" + project + "\"}");
            assertThat(deploy.status()).as(deploy.body()).isEqualTo(507);
            var ready = server.anonymous().get("/readyz");
            assertThat(ready.status()).isEqualTo(503);
            assertThat(ready.json().get("failing").toString()).contains("disk");
            // whatever else a client asks gets an answer it can act on: never a 500
            for (var r : List.of(http.get("/v1/projects/" + project), http.get("/v1/projects"),
                    http.post("/v1/projects", "{\"name\":\"on-a-full-disk\"}"))) {
                assertThat(r.status()).as(r.body()).isNotEqualTo(500);
                if (r.status() == 503) {
                    assertThat(r.json().at("/error/code").asText()).isEqualTo("store_unavailable");
                    assertThat(r.headers()).containsKey("retry-after");
                }
            }

            Files.delete(filler);
            Files.delete(last);
            AtomicReference<String> lastAnswer = new AtomicReference<>();
            JsonNode again;
            try {
                again = Await.value(DEADLINE, "a deploy to be taken again once the space is free", () -> {
                    var r = http.post("/v1/deployments", "{\"project_id\":\"" + project + "\"}");
                    assertThat(r.status()).as(r.body()).isNotEqualTo(500);
                    lastAnswer.set(r.status() + " " + r.body());
                    return r.status() == 201 ? r.json().get("data") : null;
                });
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + "; the last answer: " + lastAnswer.get() + "; /readyz: "
                        + server.anonymous().get("/readyz").body() + "; free: " + Files.getFileStore(disk.path()).getUsableSpace(), e);
            }
            Statuses.await(http, "deployments", again.get("id").asText(), "live", Duration.ofMinutes(3));
            assertThat(Apps.get(url).body()).startsWith("app:before");
            Await.until(DEADLINE, "/readyz to say ready", () -> server.anonymous().get("/readyz").status() == 200);
            assertThat(http.get("/v1/projects/" + project).json().at("/data/name").asText()).isEqualTo(name);
            assertThat(http.get("/v1/deployments?project_id=" + project).json().get("data")).hasSizeGreaterThanOrEqualTo(2);
            receiver.await(DEADLINE, "disk.recovered", r -> r.type().equals("disk.recovered"));
        }
    }
}
