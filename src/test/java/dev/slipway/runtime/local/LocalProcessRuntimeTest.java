package dev.slipway.runtime.local;

import dev.slipway.build.Artifact;
import dev.slipway.logs.Level;
import dev.slipway.runtime.AppSpec;
import dev.slipway.runtime.Instance;
import dev.slipway.runtime.InstanceType;
import dev.slipway.runtime.RuntimeSettings;
import dev.slipway.runtime.StartFailedException;
import dev.slipway.runtime.StoredInstance;
import dev.slipway.runtime.TestApps;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Await;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.RecordingLog;
import dev.slipway.testing.TestStore;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@EndToEnd
class LocalProcessRuntimeTest {
    private RuntimeFixture fixture;

    private LocalProcessRuntime runtime(UnaryOperator<RuntimeSettings> customize) {
        fixture = new RuntimeFixture(TestStore.create(Dialect.H2),
                "node_test", customize, Map.of("LEAKED_SERVER_VAR", "server-only"));
        return fixture.runtime;
    }

    @AfterEach
    void close() {
        if (fixture != null) fixture.close();
    }

    /**
     * The edge is told of a stop before the app's port closes, and of a crash and of the answer after it, without
     * polling: what each call of the listener saw, in order.
     */
    @Test
    void whoListensIsToldOfAStopBeforeTheProcessIsSignalledAndOfACrashAndItsRecovery() {
        var runtime = runtime(o -> o.withBackoff(Duration.ofMillis(300), Duration.ofSeconds(5), Duration.ofSeconds(30)));
        var seen = new java.util.concurrent.CopyOnWriteArrayList<String>();
        long[] pid = new long[1];
        int[] port = new int[1];
        runtime.onServingChange(() -> seen.add((runtime.serves(port[0]) ? "serves" : "gone")
                + (runtime.restarting(port[0]) ? " restarting" : "") + (TestApps.alive(pid[0]) ? " alive" : " dead")));
        var log = new RecordingLog();
        Instance instance = runtime.start(new AppSpec("dep_told", "prj_a", TestApps.nodeArtifact(), Map.of(), Set.of(),
                InstanceType.STANDARD), log);
        port[0] = instance.port();
        pid[0] = instance.pid();
        assertThat(TestApps.get(port[0], "/crash")).isEqualTo("crashing");
        log.await(Duration.ofSeconds(10), "the app to answer again", e -> e.message().startsWith("App answers again"));
        Await.until(Duration.ofSeconds(5), "the recovery to be told", () -> seen.size() >= 2);
        assertThat(seen).as("a crash, then the answer after the restart (of the crashed process)")
                .startsWith("serves restarting dead", "serves dead");
        seen.clear();
        pid[0] = runtime.get("dep_told").orElseThrow().pid();
        runtime.stop("dep_told");
        assertThat(seen).as("told while the process still ran, its port no longer served").first().isEqualTo("gone alive");
    }

    @Test
    void startsAnAppThatAnswersOnItsPortWithACleanEnvironment() {
        var runtime = runtime(o -> o);
        var log = new RecordingLog();
        var spec = new AppSpec("dep_basic", "prj_a", TestApps.nodeArtifact(),
                Map.of("VERSION", "v1", "DATABASE_URL", "postgres://u:pw@db/app", "SECRET_TOKEN", "s3cr3t-value-42"),
                Set.of("s3cr3t-value-42", "postgres://u:pw@db/app"), InstanceType.STANDARD);
        long t0 = System.nanoTime();
        Instance instance = runtime.start(spec, log);
        long healthyMs = (System.nanoTime() - t0) / 1_000_000;
        System.out.println("[measure] start to healthy: " + healthyMs + " ms");

        assertThat(TestApps.get(instance.port(), "/")).isEqualTo("app:v1");
        assertThat(instance.deploymentId()).isEqualTo("dep_basic");
        assertThat(instance.projectId()).isEqualTo("prj_a");
        assertThat(TestApps.alive(instance.pid())).isTrue();
        assertThat(runtime.get("dep_basic")).contains(instance);
        assertThat(runtime.list()).containsExactly(instance);
        // the ${PORT} token and PORT both carry the assigned port
        assertThat(TestApps.get(instance.port(), "/env?name=PORT")).isEqualTo(Integer.toString(instance.port()));
        assertThat(TestApps.get(instance.port(), "/env?name=DATABASE_URL")).isEqualTo("postgres://u:pw@db/app");
        assertThat(TestApps.get(instance.port(), "/env?name=LEAKED_SERVER_VAR")).isEqualTo("<unset>");
        assertThat(TestApps.get(instance.port(), "/env?name=HOME")).isEqualTo(System.getenv("HOME"));
        // its own session: process group id = its pid
        assertThat(ProcessGroups.pgidOf(instance.pid())).hasValue(instance.pid());
        // output reaches the log line by line, secrets masked
        log.await(Duration.ofSeconds(5), "the token line", e -> e.message().startsWith("connecting with token"));
        // the app's lines are read on their own thread: the listening line may land after the health check
        log.await(Duration.ofSeconds(5), "the listening line", e -> e.message().equals("listening on " + instance.port()));
        assertThat(log.messages()).contains("connecting with token ****", "listening on " + instance.port());
        assertThat(String.join("\n", log.messages())).doesNotContain("s3cr3t-value-42");
        assertThat(log.messages()).anyMatch(m -> m.startsWith("App answered HTTP 200 on port " + instance.port()));
    }

    @Test
    void startingTheSameDeploymentAgainReturnsTheRunningInstance() {
        var runtime = runtime(o -> o);
        var spec = TestApps.spec("v1", Map.of());
        Instance first = runtime.start(spec, new RecordingLog());
        Instance again = runtime.start(spec, new RecordingLog());
        assertThat(again).isEqualTo(first);
        assertThat(runtime.list()).hasSize(1);
    }

    @Test
    void anAppThatNeverListensFailsTheHealthCheckAndIsStopped() {
        var runtime = runtime(o -> o.withHealthTimeout(Duration.ofSeconds(2)).withStopGrace(Duration.ofSeconds(2)));
        var log = new RecordingLog();
        var spec = TestApps.spec("v1", Map.of("MODE", "never-listen"));
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> runtime.start(spec, log))
                .isInstanceOf(StartFailedException.class)
                .hasMessageContaining("did not answer HTTP on port")
                .hasMessageContaining("within 2.0 s")
                .hasMessageContaining("starting version v1");
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        assertThat(took).isBetween(Duration.ofSeconds(2), Duration.ofSeconds(6));
        long pid = log.printedPid(0);
        assertThat(TestApps.alive(pid)).as("the app process is gone").isFalse();
        assertThat(runtime.get(spec.deploymentId())).isEmpty();
        assertThat(fixture.store.find(spec.deploymentId())).isEmpty();
        assertThat(log.messages()).anyMatch(m -> m.startsWith("App did not answer HTTP"));
    }

    @Test
    void anAppThatExitsAtStartFailsAtOnceWithItsExitCodeAndLastOutput() {
        var runtime = runtime(o -> o);
        var log = new RecordingLog();
        var spec = TestApps.spec("v1", Map.of("MODE", "exit-at-start"));
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> runtime.start(spec, log))
                .isInstanceOf(StartFailedException.class)
                .hasMessageContaining("exited with code 7 during start-up")
                .hasMessageContaining("fatal: missing configuration");
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
        assertThat(log.first(e -> e.level() == Level.ERROR && e.message().contains("exited with code 7"))).isPresent();
        assertThat(runtime.list()).isEmpty();
    }

    @Test
    void aMissingExecutableIsAClearFailure() {
        var runtime = runtime(o -> o.withHealthTimeout(Duration.ofSeconds(5)));
        var a = TestApps.nodeArtifact();
        var artifact = new Artifact(a.id(), a.projectId(), a.framework(), a.commitSha(), a.root(),
                List.of("no-such-program-xyz"), null, a.createdAt());
        var spec = new AppSpec("dep_missing", "prj_a", artifact, Map.of(), Set.of(), InstanceType.STARTER);
        // setsid itself starts, then cannot exec the program: exit code 127 (command not found)
        assertThatThrownBy(() -> runtime.start(spec, new RecordingLog()))
                .isInstanceOf(StartFailedException.class)
                .hasMessageContaining("exited with code 127")
                .hasMessageContaining("no-such-program-xyz");
    }

    /** How much later than the scheduling of its restart a crash may be logged (a busy machine). */
    private static final Duration LOGGED_AFTER = Duration.ofMillis(25);

    @Test
    void aCrashedAppIsRestartedWithExponentialBackoffAndEachCrashIsLogged() {
        var runtime = runtime(o -> o.withBackoff(Duration.ofMillis(300), Duration.ofSeconds(5), Duration.ofSeconds(30)));
        var log = new RecordingLog();
        Instance first = runtime.start(TestApps.spec("v1", Map.of()), log);
        int port = first.port();

        assertThat(TestApps.get(port, "/crash")).isEqualTo("crashing");
        var crash1 = log.await(Duration.ofSeconds(5), "first crash", e -> e.level() == Level.ERROR && e.message().contains("crash 1 in a row"));
        assertThat(crash1.message()).contains("exited with code 3").contains("restarting in 300 ms");
        var restart1 = log.await(Duration.ofSeconds(5), "first restart", e -> e.message().startsWith("App restarted"));
        // the crash is logged just after its restart is scheduled: allow the few ms between the two
        assertThat(Duration.ofNanos(restart1.nanos() - crash1.nanos())).isGreaterThanOrEqualTo(Duration.ofMillis(300).minus(LOGGED_AFTER));
        log.await(Duration.ofSeconds(10), "answers again", e -> e.message().equals("App answers again on port " + port));
        assertThat(TestApps.get(port, "/")).isEqualTo("app:v1");
        Instance second = runtime.get(first.deploymentId()).orElseThrow();
        assertThat(second.port()).isEqualTo(port);
        assertThat(second.pid()).isNotEqualTo(first.pid());
        assertThat(TestApps.alive(first.pid())).isFalse();

        assertThat(TestApps.get(port, "/crash")).isEqualTo("crashing");
        var crash2 = log.await(Duration.ofSeconds(5), "second crash", e -> e.message().contains("crash 2 in a row"));
        assertThat(crash2.level()).isEqualTo(Level.ERROR);
        assertThat(crash2.message()).contains("exited with code 3").contains("restarting in 600 ms");
        var restart2 = log.await(Duration.ofSeconds(5), "second restart",
                e -> e.message().startsWith("App restarted") && e.nanos() > crash2.nanos());
        assertThat(Duration.ofNanos(restart2.nanos() - crash2.nanos())).isGreaterThanOrEqualTo(Duration.ofMillis(600).minus(LOGGED_AFTER));
        Await.until(Duration.ofSeconds(10), "the app answers after the second crash", () -> "app:v1".equals(TestApps.get(port, "/")));
    }

    /**
     * The attack without a sandbox: another process binds a crashed app's port before its restart.
     * The restart moves to a new port, the old one is no longer served (routes to it go stale), and the
     * squatter's socket is left alone.
     */
    @Test
    void aRestartWhosePortWasTakenMovesToANewPort() throws Exception {
        var runtime = runtime(o -> o.withBackoff(Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofSeconds(30)));
        var log = new RecordingLog();
        Instance first = runtime.start(TestApps.spec("v1", Map.of()), log);
        int port = first.port();

        assertThat(TestApps.get(port, "/crash")).isEqualTo("crashing");
        // the crash is noted (and the restart scheduled, 2 s on) when the runtime sees the exit, which may come after
        // the port is free again
        log.await(Duration.ofSeconds(10), "the crash", e -> e.message().startsWith("App crashed"));
        try (var squatter = Await.value(Duration.ofSeconds(2), "the crashed app's port to be bindable", () -> {
            try {
                return new ServerSocket(port);
            } catch (IOException stillTaken) {
                return null;
            }
        })) {
            assertThat(runtime.restarting(port)).as("restarting: the router forwards nothing there").isTrue();
            var moved = log.await(Duration.ofSeconds(10), "the move", e -> e.message().startsWith("Port " + port + " is taken"));
            assertThat(moved.level()).isEqualTo(Level.WARNING);
            log.await(Duration.ofSeconds(15), "answers again", e -> e.message().startsWith("App answers again on port "));
            Instance again = runtime.get(first.deploymentId()).orElseThrow();
            assertThat(again.port()).isNotEqualTo(port);
            assertThat(moved.message()).endsWith("the app restarts on port " + again.port());
            assertThat(TestApps.get(again.port(), "/")).isEqualTo("app:v1");
            assertThat(runtime.serves(port)).as("the old port is no instance's").isFalse();
            assertThat(runtime.serves(again.port())).isTrue();
            assertThat(runtime.restarting(again.port())).isFalse();
            assertThat(squatter.isClosed()).isFalse();
        }
    }

    @Test
    void stopKillsTheWholeProcessGroupIncludingChildren() {
        var runtime = runtime(o -> o);
        var spec = TestApps.spec("v1", Map.of("SPAWN_CHILD", "1"));
        Instance instance = runtime.start(spec, new RecordingLog());
        long child = Long.parseLong(TestApps.get(instance.port(), "/child"));
        assertThat(TestApps.alive(child)).isTrue();
        assertThat(ProcessGroups.members(instance.pid())).contains(instance.pid(), child);

        runtime.stop(spec.deploymentId());

        assertThat(TestApps.alive(instance.pid())).isFalse();
        assertThat(TestApps.alive(child)).as("the child spawned by the app").isFalse();
        assertThat(ProcessGroups.members(instance.pid())).isEmpty();
        assertThat(runtime.get(spec.deploymentId())).isEmpty();
        assertThat(fixture.store.find(spec.deploymentId())).isEmpty();
        assertThat(TestApps.get(instance.port(), "/")).isNull();
    }

    @Test
    void stopKillsAnAppThatIgnoresSigtermAfterTheGracePeriod() {
        var runtime = runtime(o -> o.withStopGrace(Duration.ofMillis(800)));
        var log = new RecordingLog();
        var spec = TestApps.spec("v1", Map.of("MODE", "ignore-term"));
        Instance instance = runtime.start(spec, log);
        long t0 = System.nanoTime();
        runtime.stop(spec.deploymentId());
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(800)).isLessThan(Duration.ofSeconds(6));
        assertThat(TestApps.alive(instance.pid())).isFalse();
        log.await(Duration.ofSeconds(2), "the app saw SIGTERM", e -> e.message().equals("ignoring SIGTERM"));
    }

    @Test
    void stopDisablesRestartsFirst() {
        var runtime = runtime(o -> o.withBackoff(Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ofSeconds(30)));
        var log = new RecordingLog();
        var spec = TestApps.spec("v1", Map.of());
        Instance instance = runtime.start(spec, log);
        runtime.stop(spec.deploymentId());
        // a stop is not a crash: nothing is logged as one, and no new process appears
        assertThat(log.all(e -> e.level() == Level.ERROR)).isEmpty();
        assertThat(log.all(e -> e.message().startsWith("starting version"))).hasSize(1);
        assertThat(TestApps.alive(instance.pid())).isFalse();
    }

    @Test
    void theEnvironmentIsStoredSealed() {
        var runtime = runtime(o -> o);
        var spec = new AppSpec("dep_sealed", "prj_a", TestApps.nodeArtifact(),
                Map.of("VERSION", "v1", "API_TOKEN", "very-secret-token-value"), Set.of("very-secret-token-value"), InstanceType.STARTER);
        runtime.start(spec, new RecordingLog());
        String stored = fixture.database.jdbi().withHandle(h -> h.createQuery(
                "SELECT env_enc FROM runtime_instances WHERE deployment_id = 'dep_sealed'").mapTo(String.class).one());
        assertThat(stored).startsWith("v1:").doesNotContain("very-secret-token-value").doesNotContain("API_TOKEN");
        StoredInstance row = fixture.store.find("dep_sealed").orElseThrow();
        assertThat(row.spec().env()).containsEntry("API_TOKEN", "very-secret-token-value");
        assertThat(row.spec().artifact()).isEqualTo(spec.artifact());
        assertThat(row.desired()).isEqualTo(StoredInstance.DesiredState.RUNNING);
        assertThat(row.pid()).isEqualTo(runtime.get("dep_sealed").orElseThrow().pid());
    }

    @Test
    void regionsAndInstanceTypeAreLabels() {
        var runtime = runtime(o -> o);
        assertThat(runtime.regions()).containsExactly("us-east-1");
        assertThat(runtime.instanceType()).isEqualTo("local");
    }
}
