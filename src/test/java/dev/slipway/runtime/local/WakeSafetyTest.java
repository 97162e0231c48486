package dev.slipway.runtime.local;

import dev.slipway.core.MicrosClock;
import dev.slipway.runtime.AppSpec;
import dev.slipway.runtime.Instance;
import dev.slipway.runtime.RetiringPool;
import dev.slipway.runtime.TestApps;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Await;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.RecordingLog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What wake-on-request relies on in the runtime: a start asked for while the deployment's process is
 * being stopped waits until it is gone (never two processes of one deployment), a stopping instance
 * serves nothing, and the retiring pool keeps an instance that serves production again.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.slipway.testing.TestStore#kinds")
@EndToEnd
class WakeSafetyTest {
    @Parameter
    Dialect kind;

    RuntimeFixture fixture;
    LocalProcessRuntime runtime;

    @BeforeEach
    void setUp() {
        fixture = new RuntimeFixture(kind, o -> o.withStopGrace(Duration.ofSeconds(5)));
        runtime = fixture.runtime;
    }

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void aStartDuringAStopWaitsForTheOldProcessToBeGone() throws Exception {
        AppSpec spec = TestApps.spec("v1", Map.of("MODE", "ignore-term")); // lives the whole grace period
        Instance first = runtime.start(spec, new RecordingLog());
        assertThat(runtime.serves(first.port())).isTrue();
        assertThat(runtime.active(spec.deploymentId())).isPresent();

        CompletableFuture<Void> stopping = CompletableFuture.runAsync(() -> runtime.stop(spec.deploymentId()));
        Await.until(Duration.ofSeconds(5), "the stop to begin", () -> !runtime.serves(first.port()));
        assertThat(runtime.active(spec.deploymentId())).as("a stopping instance is not reused").isEmpty();
        assertThat(TestApps.alive(first.pid())).as("the old process, ignoring SIGTERM, still runs").isTrue();

        Instance second = CompletableFuture.supplyAsync(() -> runtime.start(spec, new RecordingLog())).get(30, TimeUnit.SECONDS);
        assertThat(TestApps.alive(first.pid())).as("the new start waited for the old process to be killed").isFalse();
        assertThat(stopping).isDone();
        assertThat(second.pid()).isNotEqualTo(first.pid());
        assertThat(runtime.list()).extracting(Instance::deploymentId).containsExactly(spec.deploymentId());
        assertThat(TestApps.get(second.port(), "/")).isEqualTo("app:v1");
        assertThat(runtime.serves(second.port())).isTrue();
    }

    @Test
    void theRetiringPoolKeepsAnInstanceThatServesProductionAgainAndReportsThePortsItStops() {
        Instance app = runtime.start(TestApps.spec("v1", Map.of()), new RecordingLog());
        AtomicBoolean production = new AtomicBoolean(true);
        var stoppedPorts = new CopyOnWriteArrayList<Integer>();
        try (RetiringPool pool = new RetiringPool(runtime, fixture.store, MicrosClock.system(), Duration.ofMillis(300),
                id -> id.equals(app.deploymentId()) && production.get(), stoppedPorts::add, port -> 0)) {
            // retired by a wake-up while a rollback switched production to it: kept
            pool.retire(app.deploymentId());
            Await.until(Duration.ofSeconds(10), "the retirement to be decided", () -> pool.retiring().isEmpty());
            assertThat(runtime.get(app.deploymentId())).isPresent();
            assertThat(fixture.store.find(app.deploymentId()).orElseThrow().stopAfter()).isNull();
            assertThat(stoppedPorts).isEmpty();

            production.set(false);
            pool.retire(app.deploymentId());
            // its port is told before it stops: an edge process forgets the route while the app still answers
            Await.until(Duration.ofSeconds(10), "the retired instance to stop",
                    () -> !stoppedPorts.isEmpty() && runtime.get(app.deploymentId()).isEmpty());
            assertThat(stoppedPorts).containsExactly(app.port());
            assertThat(runtime.get(app.deploymentId())).isEmpty();
            assertThat(TestApps.alive(app.pid())).isFalse();
        }
    }
}
