package dev.slipway.runtime;

import dev.slipway.testing.RecordingLog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What every {@link AppRuntime} does, whatever runs the apps: each runtime's test extends this class and says
 * how to make the runtime and the apps it runs. Where runtimes differ (what a stop leaves behind, how a failed
 * start is cleaned up, confinement), this class checks the common part and each subclass the rest.
 */
public abstract class AppRuntimeContract {
    /** The regions every runtime under test is configured with. */
    protected static final List<String> REGIONS = List.of("us-east-1");
    /** Health deadline of a start that is expected to succeed: generous, a loaded machine is slow. */
    private static final Duration PATIENT = Duration.ofSeconds(60);
    /** Health deadline of a start that is expected to fail. */
    private static final Duration IMPATIENT = Duration.ofSeconds(2);

    private final List<AppRuntime> made = new ArrayList<>();

    /**
     * A runtime over this test's state (its store and node, or its cluster), configured with {@link #REGIONS} and
     * the given health deadline. A call after {@link AppRuntime#close} of an earlier one is that server's next start.
     */
    protected abstract AppRuntime newRuntime(Duration healthTimeout);

    /** A new deployment (an id not used before) of an app that becomes healthy. */
    protected abstract AppSpec healthyApp();

    /** A new deployment of an app that never becomes healthy. */
    protected abstract AppSpec neverHealthyApp();

    /** What the app of {@code spec} answers to {@code GET /}. */
    protected abstract String answerOf(AppSpec spec);

    /** The label {@link AppRuntime#instanceType} reports. */
    protected abstract String instanceType();

    /** Whether this runtime runs release commands and workers ({@link AppRuntime#releaseCommands}, {@link AppRuntime#runsWorkers}). */
    protected abstract boolean runsReleaseCommands();

    /** Asserts that nothing of the failed start of {@code spec} is left, by what this runtime would leave. */
    protected abstract void assertNothingLeftOf(AppSpec spec, RecordingLog log);

    /** Asserts what this runtime's stop of {@code stopped} leaves (and what it does not). */
    protected abstract void assertStoppedHere(AppSpec spec, Instance stopped);

    /** Called after every runtime of the test is closed: drops the test's state. */
    protected void afterRuntimesClosed() {
    }

    private AppRuntime runtime(Duration healthTimeout) {
        AppRuntime r = newRuntime(healthTimeout);
        made.add(r);
        return r;
    }

    @AfterEach
    void closeRuntimes() {
        try {
            for (AppRuntime r : made.reversed()) r.close();
        } finally {
            afterRuntimesClosed();
        }
    }

    /** {@code GET /} at the instance's address on a new connection; null when nothing answers. */
    protected static String answerAt(Instance i) {
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            return http.send(HttpRequest.newBuilder(URI.create("http://" + i.host() + ":" + i.port() + "/"))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    @Test
    void startReturnsAHealthyInstanceReachableOnItsAddress() {
        AppRuntime runtime = runtime(PATIENT);
        AppSpec spec = healthyApp();
        Instance i = runtime.start(spec, new RecordingLog());
        assertThat(i.deploymentId()).isEqualTo(spec.deploymentId());
        assertThat(i.projectId()).isEqualTo(spec.projectId());
        assertThat(i.host()).isNotBlank();
        assertThat(i.port()).isBetween(1, 65_535);
        assertThat(answerAt(i)).isEqualTo(answerOf(spec));
        assertThat(runtime.serves(i.port())).isTrue();
        assertThat(runtime.restarting(i.port())).isFalse();
        assertThat(runtime.processes(spec.deploymentId())).containsExactly(new ProcessState(ProcessState.WEB, "running", 0));
        assertThat(runtime.processes("dep_never_started")).isEmpty();
    }

    @Test
    void aReleaseCommandRunsToItsEndWithTheAppsVariablesAndNoPort() throws Exception {
        AppRuntime runtime = runtime(PATIENT);
        assertThat(runtime.releaseCommands().isPresent()).isEqualTo(runsReleaseCommands());
        assertThat(runtime.runsWorkers()).isEqualTo(runsReleaseCommands());
        if (!runsReleaseCommands()) return;
        AppSpec spec = healthyApp();
        RecordingLog log = new RecordingLog();
        ReleaseCommands.Result result = runtime.releaseCommands().get().run(spec, List.of("sh", "-c",
                "echo \"released ${PORT:-without a port}, $SLIPWAY_DEPLOYMENT_ID\"; exit 7"), log, Duration.ofMinutes(1));
        assertThat(result.exitCode()).isEqualTo(7);
        assertThat(result.timedOut()).isFalse();
        assertThat(result.lastLines()).containsExactly("released without a port, " + spec.deploymentId());
        assertThat(log.messages()).contains("released without a port, " + spec.deploymentId());
        assertThat(runtime.list()).as("a release command is no instance").isEmpty();
    }

    @Test
    void aSecondStartOfTheSameDeploymentReturnsThatInstance() {
        AppRuntime runtime = runtime(PATIENT);
        AppSpec spec = healthyApp();
        Instance first = runtime.start(spec, new RecordingLog());
        assertThat(runtime.start(spec, new RecordingLog())).isEqualTo(first);
        assertThat(runtime.list()).containsExactly(first);
    }

    @Test
    void getActiveAndListShowWhatRunsEachOnItsOwnAddress() {
        AppRuntime runtime = runtime(PATIENT);
        assertThat(runtime.list()).isEmpty();
        AppSpec a = healthyApp();
        AppSpec b = healthyApp();
        Instance ia = runtime.start(a, new RecordingLog());
        Instance ib = runtime.start(b, new RecordingLog());
        assertThat(ia.host() + ":" + ia.port()).isNotEqualTo(ib.host() + ":" + ib.port());
        assertThat(runtime.get(a.deploymentId())).contains(ia);
        assertThat(runtime.active(a.deploymentId())).contains(ia);
        assertThat(runtime.get(b.deploymentId())).contains(ib);
        assertThat(runtime.get("dep_notstarted")).isEmpty();
        assertThat(runtime.active("dep_notstarted")).isEmpty();
        assertThat(runtime.list()).containsExactlyInAnyOrder(ia, ib);
        assertThat(answerAt(ia)).isEqualTo(answerOf(a));
        assertThat(answerAt(ib)).isEqualTo(answerOf(b));
    }

    @Test
    void stopMakesItGoneAndASecondStopIsANoOp() {
        AppRuntime runtime = runtime(PATIENT);
        AppSpec stopped = healthyApp();
        AppSpec kept = healthyApp();
        Instance i = runtime.start(stopped, new RecordingLog());
        Instance other = runtime.start(kept, new RecordingLog());

        runtime.stop(stopped.deploymentId());
        assertThat(runtime.get(stopped.deploymentId())).isEmpty();
        assertThat(runtime.active(stopped.deploymentId())).isEmpty();
        assertThat(runtime.serves(i.port())).isFalse();
        assertThat(runtime.list()).containsExactly(other);
        assertStoppedHere(stopped, i);

        assertThatCode(() -> runtime.stop(stopped.deploymentId())).doesNotThrowAnyException();
        assertThatCode(() -> runtime.stop("dep_neverstarted")).doesNotThrowAnyException();
        assertThat(runtime.get(stopped.deploymentId())).isEmpty();
        assertThat(runtime.get(kept.deploymentId())).contains(other);
        assertThat(answerAt(other)).isEqualTo(answerOf(kept));
    }

    @Test
    void aStartThatNeverGetsHealthyThrowsAndLeavesNothingRunning() {
        AppRuntime runtime = runtime(IMPATIENT);
        AppSpec spec = neverHealthyApp();
        RecordingLog log = new RecordingLog();
        assertThatThrownBy(() -> runtime.start(spec, log)).isInstanceOf(StartFailedException.class);
        assertThat(runtime.get(spec.deploymentId())).isEmpty();
        assertThat(runtime.active(spec.deploymentId())).isEmpty();
        assertThat(runtime.list()).isEmpty();
        assertNothingLeftOf(spec, log);
    }

    @Test
    void regionsAndInstanceTypeAreTheConfiguredLabels() {
        AppRuntime runtime = runtime(PATIENT);
        assertThat(runtime.regions()).containsExactlyElementsOf(REGIONS);
        assertThat(runtime.instanceType()).isEqualTo(instanceType());
    }

    @Test
    void afterCloseTheNextServersRecoveryBringsBackWhatShouldRunAndNotWhatWasStopped() {
        AppRuntime first = runtime(PATIENT);
        AppSpec running = healthyApp();
        AppSpec stopped = healthyApp();
        first.start(running, new RecordingLog());
        first.start(stopped, new RecordingLog());
        first.stop(stopped.deploymentId());
        first.close();

        AppRuntime next = runtime(PATIENT);
        RecoveryReport report = next.recover(id -> new RecordingLog());
        assertThat(report.killedOrphans()).isZero();
        assertThat(report.running()).extracting(Instance::deploymentId).containsExactly(running.deploymentId());
        assertThat(report.failing()).isEmpty();
        Instance recovered = next.get(running.deploymentId()).orElseThrow();
        assertThat(report.running()).containsExactly(recovered);
        assertThat(next.list()).containsExactly(recovered);
        assertThat(next.get(stopped.deploymentId())).isEmpty();
        assertThat(next.serves(recovered.port())).isTrue();
        assertThat(answerAt(recovered)).isEqualTo(answerOf(running));
    }
}
