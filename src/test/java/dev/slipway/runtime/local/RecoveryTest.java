package dev.slipway.runtime.local;

import dev.slipway.runtime.AppSpec;
import dev.slipway.runtime.Instance;
import dev.slipway.runtime.NodeId;
import dev.slipway.runtime.RecoveryReport;
import dev.slipway.runtime.TestApps;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Alone;
import dev.slipway.testing.Await;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.RecordingLog;
import dev.slipway.testing.TestStore;
import java.io.IOException;
import java.util.Collections;
import java.util.HashSet;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** A server killed with SIGKILL leaves its apps running; the next start kills them and runs the apps again. */
@Alone
@ParameterizedClass(name = "{0}")
@MethodSource("dev.slipway.testing.TestStore#kinds")
@EndToEnd
class RecoveryTest {
    @Parameter
    Dialect kind;

    private record Started(String deploymentId, int port, long pid, long childPid) {}

    @Test
    void afterKill9LeftoversAreKilledAndAppsRunAgainWithin30Seconds() throws Exception {
        TestStore testStore = TestStore.create(kind);
        Path dataDir = testStore.dataDir();
        String node = NodeId.load(dataDir);
        int apps = 3;

        Process host = new ProcessBuilder(javaBinary(), "-cp", System.getProperty("java.class.path"),
                RuntimeHostMain.class.getName(), testStore.jdbcUrl(), dataDir.toString(), Integer.toString(apps))
                .redirectErrorStream(true).start();
        List<Started> before = new ArrayList<>();
        try {
            for (String line : readUntil(host, "ALL READY", Duration.ofSeconds(90))) {
                if (!line.startsWith("READY ")) continue;
                String[] f = line.split(" ");
                int port = Integer.parseInt(f[2]);
                before.add(new Started(f[1], port, Long.parseLong(f[3]), Long.parseLong(TestApps.get(port, "/child"))));
            }
        } finally {
            host.destroyForcibly(); // SIGKILL: no shutdown hook, nothing stops the apps
            host.waitFor(10, TimeUnit.SECONDS);
        }
        long killedAt = System.nanoTime();
        assertThat(before).hasSize(apps);
        for (Started s : before) {
            assertThat(TestApps.alive(s.pid())).as("orphan app survives its server").isTrue();
            assertThat(TestApps.alive(s.childPid())).isTrue();
        }

        RuntimeFixture next = new RuntimeFixture(testStore, node, o -> o, Map.of());
        try {
            RecordingLog log = new RecordingLog();
            RecoveryReport report = next.runtime.recover(id -> log);
            Duration toHealthy = Duration.ofNanos(System.nanoTime() - killedAt);
            System.out.println("[measure] " + kind + " kill -9 to all apps healthy again: " + toHealthy.toMillis() + " ms");

            assertThat(toHealthy).isLessThan(Duration.ofSeconds(30));
            assertThat(report.failing()).isEmpty();
            assertThat(report.running()).hasSize(apps);
            assertThat(report.killedOrphans()).isGreaterThanOrEqualTo(2 * apps);
            for (Started s : before) {
                assertThat(TestApps.alive(s.pid())).as("leftover app %s", s.pid()).isFalse();
                assertThat(TestApps.alive(s.childPid())).as("leftover child %s", s.childPid()).isFalse();
                Instance now = next.runtime.get(s.deploymentId()).orElseThrow();
                assertThat(now.pid()).isNotEqualTo(s.pid());
                assertThat(now.port()).as("the recorded port is reused when free").isEqualTo(s.port());
                String version = "v" + s.deploymentId().substring("dep_recover_".length());
                assertThat(TestApps.get(now.port(), "/")).isEqualTo("app:" + version);
            }
            // no orphan anywhere: every process with this node's marker belongs to a new instance's group
            Set<Long> groups = new HashSet<>();
            next.runtime.list().forEach(i -> groups.add(i.pid()));
            for (long pid : ProcessGroups.withEnvironment(LaunchCommand.NODE_MARKER, node)) {
                assertThat(groups).as("process %s belongs to a new instance", pid).contains(ProcessGroups.pgidOf(pid).orElse(-1));
            }
            // the environment (secrets included) came back from the sealed store, and stays masked
            log.await(Duration.ofSeconds(5), "masked token", e -> e.message().equals("connecting with token ****"));
        } finally {
            next.close();
        }
    }

    @Test
    void recoverySparesAProcessThatIsNotOursAndDropsWhatShouldNotRun() throws Exception {
        RuntimeFixture fixture = new RuntimeFixture(kind, o -> o);
        // a stranger in its own session, as if the recorded pid had been reused
        Process stranger = new ProcessBuilder(Executables.SETSID, "sleep", "60").start();
        try {
            Await.until(Duration.ofSeconds(5), "stranger leads its group",
                    () -> ProcessGroups.pgidOf(stranger.pid()).orElse(-1) == stranger.pid());
            AppSpec reused = TestApps.spec("v1", Map.of());
            fixture.store.save(reused, 1); // port 1 is never free: recovery picks another
            fixture.store.recordProcess(reused.deploymentId(), stranger.pid(), stranger.pid(), 1, Instant.now());
            AppSpec stopped = TestApps.spec("v2", Map.of());
            fixture.store.save(stopped, 2);
            fixture.store.markStopped(stopped.deploymentId());
            AppSpec retiredAndDue = TestApps.spec("v3", Map.of());
            fixture.store.save(retiredAndDue, 3);
            fixture.store.setStopAfter(retiredAndDue.deploymentId(), Instant.now().minusSeconds(1));

            RecoveryReport report = fixture.runtime.recover(id -> new RecordingLog());

            assertThat(stranger.isAlive()).as("a process without our marker is never killed").isTrue();
            assertThat(report.killedOrphans()).isZero();
            assertThat(report.running()).extracting(Instance::deploymentId).containsExactly(reused.deploymentId());
            Instance i = fixture.runtime.get(reused.deploymentId()).orElseThrow();
            assertThat(TestApps.get(i.port(), "/")).isEqualTo("app:v1");
            assertThat(fixture.store.find(stopped.deploymentId())).isEmpty();
            assertThat(fixture.store.find(retiredAndDue.deploymentId())).isEmpty();
            assertThat(fixture.runtime.list()).hasSize(1);
        } finally {
            stranger.destroyForcibly();
            fixture.close();
        }
    }

    private static String javaBinary() {
        return ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    /** Lines the process prints until one equals {@code last}; fails with what it printed otherwise. */
    private static List<String> readUntil(Process p, String last, Duration timeout) throws Exception {
        List<String> lines = Collections.synchronizedList(new ArrayList<>());
        CompletableFuture<Void> done = CompletableFuture.runAsync(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    lines.add(line);
                    if (line.equals(last)) return;
                }
            } catch (IOException ignored) {
                // the process went away
            }
        });
        try {
            done.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("no '" + last + "' within " + timeout + "; output: " + lines);
        }
        if (!lines.contains(last)) throw new AssertionError("process ended without '" + last + "': " + lines);
        return new ArrayList<>(lines);
    }

}
