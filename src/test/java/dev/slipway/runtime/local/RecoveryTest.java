package dev.slipway.runtime.local;

import dev.slipway.runtime.AppSpec;
import dev.slipway.runtime.Instance;
import dev.slipway.runtime.NodeId;
import dev.slipway.runtime.RecoveryReport;
import dev.slipway.runtime.TestApps;
import dev.slipway.store.Dialect;
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
import java.nio.file.Files;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A server killed with SIGKILL leaves its apps running; the next start adopts them as they run (same process, same port,
 * same memory), restarts one that died meanwhile, and never adopts or kills a process that only reuses a recorded pid.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.slipway.testing.TestStore#kinds")
@EndToEnd
class RecoveryTest {
    @Parameter
    Dialect kind;

    private record Started(String deploymentId, int port, long pid, long childPid) {}

    @Test
    void afterKill9TheAppsAreAdoptedAsTheyRunAndOneThatDiedIsStartedAgain() throws Exception {
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
        assertThat(before).hasSize(apps);
        for (Started s : before) {
            assertThat(TestApps.alive(s.pid())).as("orphan app survives its server").isTrue();
            assertThat(TestApps.alive(s.childPid())).isTrue();
            assertThat(TestApps.get(s.port(), "/count")).as("the app serves while no server runs").isEqualTo("1");
            // output while no server reads it: the app writes to its file, never to a closed pipe
            assertThat(TestApps.get(s.port(), "/say?text=alone-" + s.deploymentId())).isEqualTo("said");
        }
        // one app dies while the server is away: it is the one started again
        Started died = before.getLast();
        ProcessGroups.terminate(died.pid(), Duration.ZERO);

        // each app's TMPDIR, a scratch dir its server made: the server that adopts it deletes it once the app ends
        List<Path> scratch = new ArrayList<>();
        for (Started s : before.subList(0, apps - 1)) scratch.add(tmpDir(s.pid()));
        RuntimeFixture next = new RuntimeFixture(testStore, node, o -> o, Map.of());
        try {
            RecordingLog log = new RecordingLog();
            long t0 = System.nanoTime();
            RecoveryReport report = next.runtime.recover(id -> log);
            System.out.println("[measure] " + kind + " recovery after kill -9, " + (apps - 1) + " adopted and 1 started: "
                    + Duration.ofNanos(System.nanoTime() - t0).toMillis() + " ms");

            assertThat(report.failing()).isEmpty();
            assertThat(report.running()).hasSize(apps);
            assertThat(report.adopted()).isEqualTo(apps - 1);
            for (Started s : before.subList(0, apps - 1)) {
                Instance now = next.runtime.get(s.deploymentId()).orElseThrow();
                assertThat(now.pid()).as("adopted, not restarted").isEqualTo(s.pid());
                assertThat(now.port()).isEqualTo(s.port());
                assertThat(TestApps.alive(s.childPid())).as("its child too").isTrue();
                assertThat(TestApps.get(s.port(), "/count")).as("its memory kept").isEqualTo("2");
                // what it printed while no server ran, and what it prints now, reach the new server's log, masked
                log.await(Duration.ofSeconds(10), "output written while away", e -> e.message().equals("alone-" + s.deploymentId()));
                String index = s.deploymentId().substring("dep_recover_".length());
                TestApps.get(s.port(), "/say?text=" + java.net.URLEncoder.encode("using recover-secret-" + index, StandardCharsets.UTF_8));
                log.await(Duration.ofSeconds(10), "masked output after the adoption", e -> e.message().equals("using ****"));
            }
            assertThat(TestApps.alive(died.childPid())).as("what the dead app left is killed").isFalse();
            Instance again = next.runtime.get(died.deploymentId()).orElseThrow();
            assertThat(again.pid()).isNotEqualTo(died.pid());
            assertThat(TestApps.get(again.port(), "/count")).as("started anew").isEqualTo("1");
            // no orphan anywhere: every process with this node's marker belongs to an instance's group
            Set<Long> groups = new HashSet<>();
            next.runtime.list().forEach(i -> groups.add(i.pid()));
            for (long pid : ProcessGroups.withEnvironment(LaunchCommand.NODE_MARKER, node)) {
                assertThat(groups).as("process %s belongs to an instance", pid).contains(ProcessGroups.pgidOf(pid).orElse(-1));
            }
            // an adopted app that crashes later is restarted like any other
            Started adopted = before.getFirst();
            TestApps.get(adopted.port(), "/crash");
            Await.until(Duration.ofSeconds(30), "the adopted app to be restarted after its crash", () -> {
                var i = next.runtime.get(adopted.deploymentId());
                return i.isPresent() && i.get().pid() != adopted.pid() && "1".equals(TestApps.get(i.get().port(), "/count"));
            });
        } finally {
            next.close();
        }
        for (Path dir : scratch) assertThat(dir).as("an adopted app's scratch dir, once it stopped").doesNotExist();
    }

    /** The {@code TMPDIR} of a process, from its environment. */
    private static Path tmpDir(long pid) throws IOException {
        String environ = Files.readString(Path.of("/proc", Long.toString(pid), "environ"), StandardCharsets.UTF_8);
        for (String entry : environ.split("\0")) {
            if (entry.startsWith("TMPDIR=")) {
                Path dir = Path.of(entry.substring("TMPDIR=".length()));
                assertThat(dir).as("the app's scratch dir").isDirectory();
                return dir;
            }
        }
        throw new AssertionError("no TMPDIR in the environment of " + pid);
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
            // the pid and its start time as recorded: only the missing markers tell it is not ours
            fixture.store.recordProcess(reused.deploymentId(), stranger.pid(), stranger.pid(), 1, Instant.now(),
                    Supervisor.startMillis(stranger.toHandle()));
            AppSpec stopped = TestApps.spec("v2", Map.of());
            fixture.store.save(stopped, 2);
            fixture.store.markStopped(stopped.deploymentId());
            AppSpec retiredAndDue = TestApps.spec("v3", Map.of());
            fixture.store.save(retiredAndDue, 3);
            fixture.store.setStopAfter(retiredAndDue.deploymentId(), Instant.now().minusSeconds(1));

            RecoveryReport report = fixture.runtime.recover(id -> new RecordingLog());

            assertThat(stranger.isAlive()).as("a process without our marker is never killed").isTrue();
            assertThat(report.killedOrphans()).isZero();
            assertThat(report.adopted()).isZero();
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
