package dev.slipway.backup;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Await;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.TestServer;
import dev.slipway.testing.TestStore;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
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

    /** The scheduled backups in the folder (not the operator's file, nor a backup being written). */
    private static List<String> backupFiles(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(Path::toString).filter(n -> n.matches(".*/slipway-\\d{8}T\\d{9}Z\\.tar\\.gz")).toList();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
