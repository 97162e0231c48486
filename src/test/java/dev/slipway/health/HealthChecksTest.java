package dev.slipway.health;

import dev.slipway.build.Artifact;
import dev.slipway.runtime.AppSpec;
import dev.slipway.runtime.HealthSpec;
import dev.slipway.runtime.Instance;
import dev.slipway.runtime.InstanceType;
import dev.slipway.runtime.TestApps;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Await;
import dev.slipway.testing.RecordingLog;
import dev.slipway.testing.TestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An app's own health check: its start waits for its path (its {@code /} answers 500, which the default check refuses),
 * and while it runs, failed checks make the router answer 503 and enough of them in a row restart it, the log saying so.
 */
class HealthChecksTest {
    private static TestServer server;

    @BeforeAll
    static void start() {
        server = TestServer.start(Dialect.H2);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static AppSpec spec(HealthSpec health) throws Exception {
        Path dir = Path.of(HealthChecksTest.class.getResource("/apps/health/server.js").toURI()).getParent();
        Artifact artifact = new Artifact("art_" + UUID.randomUUID().toString().substring(0, 8), "prj_health", "node-express",
                "abc123", dir, List.of("node", "server.js"), null, Instant.parse("2026-01-01T00:00:00Z"));
        return new AppSpec("dep_" + UUID.randomUUID().toString().replace("-", "").substring(0, 20), "prj_health", artifact,
                Map.of(), Set.of(), InstanceType.STARTER).withHealth(health);
    }

    @Test
    void aFailingRunningAppGets503sThenIsRestartedAndTheLogSaysSo() throws Exception {
        HealthSpec health = new HealthSpec("/healthz", 200, 399, Duration.ofMillis(200), Duration.ZERO, 3);
        RecordingLog log = new RecordingLog();
        AppSpec spec = spec(health);
        Instance app = server.startApp(spec, log); // its / answers 500: only its own path lets it start
        var runtime = server.slipway().engine().runtime();
        assertThat(runtime.restarting(app.port())).isFalse();
        String id = TestApps.get(app.port(), "/id");

        TestApps.get(app.port(), "/sick");
        Await.until(Duration.ofSeconds(30), "the router to be told it fails", () -> runtime.restarting(app.port()));
        Await.until(Duration.ofSeconds(60), "the restart", () -> log.text().contains("App restarted"));
        Await.until(Duration.ofSeconds(30), "its new process to pass", () -> !runtime.restarting(runtime.get(spec.deploymentId()).orElseThrow().port()));
        int port = runtime.get(spec.deploymentId()).orElseThrow().port();
        assertThat(TestApps.get(port, "/id")).isNotEqualTo(id);
        assertThat(log.text()).contains("Health check failed (1 of 3 in a row): it answered HTTP 503 on /healthz (wants 200-399)")
                .contains("App failed its health check 3 times in a row: restarting it");
        runtime.stop(spec.deploymentId());
    }
}
