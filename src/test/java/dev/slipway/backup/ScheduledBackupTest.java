package dev.slipway.backup;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.store.Dialect;
import dev.slipway.testing.WebhookReceiver;
import dev.slipway.webhooks.WebhookSettings;
import dev.slipway.testing.Await;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.TestServer;
import dev.slipway.testing.TestStore;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Scheduled backups: made on time, the newest kept, a failure shown in /readyz until one succeeds. */
@EachStore
@EndToEnd
class ScheduledBackupTest {
    private static final Duration DEADLINE = Duration.ofSeconds(60);
    private final Dialect kind;

    ScheduledBackupTest(Dialect kind) {
        this.kind = kind;
    }

    private static JsonNode backups(TestServer server) {
        JsonNode ready = server.anonymous().get("/readyz").json();
        assertThat(ready.get("status").asText()).isEqualTo("ready");
        return ready.get("backups");
    }

    @Test
    void backupsAreMadeOnScheduleAndTheNewestKept() throws Exception {
        Path dir = Files.createTempDirectory("slipway-scheduled-");
        Path foreign = Files.writeString(dir.resolve("notes.txt"), "the operator's own file");
        try (TestServer server = TestServer.start(kind, c -> c.backups(new BackupSettings(dir, Duration.ofSeconds(2), 2)))) {
            Set<String> made = new LinkedHashSet<>();
            Await.until(DEADLINE, "three scheduled backups", () -> {
                JsonNode b = backups(server);
                assertThat(b.get("status").asText()).as(b.toString()).isNotEqualTo("failing");
                if (!b.get("last_file").isNull()) made.add(b.get("last_file").asText());
                return made.size() >= 3;
            });
            // a fourth may come at any moment: what must hold is that the oldest went and two stay
            String oldest = made.iterator().next();
            Await.until(DEADLINE, "the oldest to be deleted and two to stay",
                    () -> !Files.exists(Path.of(oldest)) && backupFiles(dir).size() == 2);
            assertThat(foreign).as("the operator's own file").hasContent("the operator's own file");
            assertThat(backups(server).get("status").asText()).isEqualTo("ok");
        } finally {
            TestStore.deleteTree(dir);
        }
    }

    @Test
    void aFailureIsShownInReadyzUntilABackupSucceeds() throws Exception {
        Path notADir = Files.createTempFile("slipway-not-a-folder-", ".txt");
        try (TestServer server = TestServer.start(kind, c -> c.backups(new BackupSettings(notADir, Duration.ofSeconds(1), 2)))) {
            JsonNode failing = Await.value(DEADLINE, "the first backup to fail", () -> {
                JsonNode b = backups(server);
                return b.get("status").asText().equals("failing") ? b : null;
            });
            assertThat(failing.get("last_error").asText()).isEqualTo(notADir + " is not a folder (SLIPWAY_BACKUP_DIR)");
            assertThat(failing.get("last_success_at").isNull()).isTrue();
            assertThat(failing.get("next_at").asText()).isNotEmpty();
        } finally {
            Files.deleteIfExists(notADir);
        }
    }

    /**
     * A backup that starts to fail is sent to the operator's webhooks as {@code backup.failed}, and the first success after
     * it as {@code backup.recovered}; a tenant's endpoint subscribed to every event gets neither.
     */
    @Test
    void aFailingBackupIsSentToTheOperatorsWebhooksOnlyAndSoIsItsRecovery() throws Exception {
        Path dir = Files.createTempDirectory("slipway-scheduled-");
        try (WebhookReceiver receiver = WebhookReceiver.start();
             TestServer server = TestServer.start(kind, c -> c.backups(new BackupSettings(dir, Duration.ofSeconds(1), 2))
                     .webhooks(new WebhookSettings(true, List.of(Duration.ofMillis(300)))))) {
            TestServer.Tenant operator = server.tenant(Tier.TEAM); // the store's first account
            TestServer.Tenant tenant = server.tenant(Tier.TEAM);
            String secret = hook(operator, receiver.url("/operator"), "[\"backup.failed\",\"backup.recovered\"]");
            hook(tenant, receiver.url("/tenant"), "[\"*\"]");

            // the folder becomes a file: a backup being written into it meanwhile fails too
            Await.until(DEADLINE, "the folder replaced by a file", () -> {
                try {
                    TestStore.deleteTree(dir);
                    Files.writeString(dir, "not a folder");
                    return true;
                } catch (java.io.IOException | RuntimeException e) {
                    return false;
                }
            });
            var failed = receiver.await(DEADLINE, "backup.failed", r -> r.type().equals("backup.failed"));
            assertThat(failed.verifiesWith(secret)).isTrue();
            assertThat(failed.json().at("/data/status").asText()).isEqualTo("failing");
            assertThat(failed.json().at("/data/last_error").asText()).isNotEmpty();

            Set<String> failures = new LinkedHashSet<>();
            Await.until(DEADLINE, "three failed tries", () -> {
                JsonNode b = server.anonymous().get("/readyz").json().get("backups");
                if (b.has("last_failure_at")) failures.add(b.get("last_failure_at").asText());
                return failures.size() >= 3;
            });
            Files.delete(dir); // the next backup makes the folder and succeeds
            var recovered = receiver.await(DEADLINE, "backup.recovered", r -> r.type().equals("backup.recovered"));
            assertThat(recovered.json().at("/data/status").asText()).isEqualTo("ok");
            assertThat(recovered.json().at("/data/last_file").asText()).startsWith(dir.toString());
            Map<String, WebhookReceiver.Received> events = new LinkedHashMap<>();
            for (var r : receiver.received("/operator")) events.putIfAbsent(r.webhookId(), r); // a retried delivery is one event
            List<String> errors = events.values().stream().filter(r -> r.type().equals("backup.failed"))
                    .map(r -> r.json().at("/data/last_error").asText()).toList();
            assertThat(errors).as("a failure that lasts is sent once (again only when its error changes), not at every try")
                    .doesNotHaveDuplicates();
            assertThat(events.values().stream().map(WebhookReceiver.Received::type).toList().getLast()).isEqualTo("backup.recovered");
            assertThat(receiver.received("/tenant")).as("the platform's events are the operator's alone").isEmpty();
        } finally {
            if (Files.isDirectory(dir)) TestStore.deleteTree(dir);
            else Files.deleteIfExists(dir);
        }
    }

    private static String hook(TestServer.Tenant t, String url, String events) {
        var r = t.http().post("/v1/webhooks", "{\"url\":\"" + url + "\",\"events\":" + events + "}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().at("/data/secret").asText();
    }

    /** The scheduled backups in the folder (not the operator's file, nor a backup being written). */
    private static List<String> backupFiles(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(Path::toString).filter(n -> n.matches(".*/slipway-\\d{8}T\\d{9}Z\\.tar\\.gz")).toList();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
