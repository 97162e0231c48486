package dev.slipway.runtime;

import dev.slipway.core.MicrosClock;
import dev.slipway.runtime.local.LocalProcessRuntime;
import dev.slipway.runtime.local.RuntimeFixture;
import dev.slipway.testing.Await;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.MutableClock;
import dev.slipway.testing.RecordingLog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

@EndToEnd
class RetiringPoolTest {
    private final RuntimeFixture fixture = RuntimeFixture.h2();
    private final LocalProcessRuntime runtime = fixture.runtime;

    @AfterEach
    void close() {
        fixture.close();
    }

    private RetiringPool pool(Duration window) {
        return new RetiringPool(runtime, fixture.store, MicrosClock.system(), window);
    }

    @Test
    void aRetiredInstanceStopsAfterTheWindowUnlessReinstated() {
        Instance kept = runtime.start(TestApps.spec("kept", Map.of()), new RecordingLog());
        Instance gone = runtime.start(TestApps.spec("gone", Map.of()), new RecordingLog());
        // the window passes when the test says: however slow the machine, nothing is due before
        MutableClock clock = new MutableClock();
        try (RetiringPool pool = new RetiringPool(runtime, fixture.store, clock, Duration.ofMillis(400))) {
            pool.retire(kept.deploymentId());
            pool.retire(gone.deploymentId());
            assertThat(pool.retiring()).containsOnlyKeys(kept.deploymentId(), gone.deploymentId());
            assertThat(fixture.store.find(gone.deploymentId()).orElseThrow().stopAfter()).isNotNull();
            assertThat(TestApps.get(kept.port(), "/")).as("still warm during the window").isEqualTo("app:kept");

            assertThat(pool.reinstate(kept.deploymentId())).isTrue();
            assertThat(fixture.store.find(kept.deploymentId()).orElseThrow().stopAfter()).isNull();
            assertThat(runtime.get(gone.deploymentId())).as("not due before the window has passed").isPresent();

            clock.advance(Duration.ofMillis(400));
            Await.until(Duration.ofSeconds(10), "the retired instance stops", () -> runtime.get(gone.deploymentId()).isEmpty());
            assertThat(TestApps.alive(gone.pid())).isFalse();
            // both were due at the same time on one timer: had the reinstated one been stopped, it would be by now
            assertThat(runtime.get(kept.deploymentId())).isPresent();
            assertThat(TestApps.get(kept.port(), "/")).isEqualTo("app:kept");
            assertThat(pool.retiring()).isEmpty();
            assertThat(pool.reinstate(gone.deploymentId())).as("too late: already stopped").isFalse();
        }
    }

    @Test
    void aNewPoolResumesStoredRetirements() {
        Instance app = runtime.start(TestApps.spec("v1", Map.of()), new RecordingLog());
        try (RetiringPool before = pool(Duration.ofMillis(800))) {
            before.retire(app.deploymentId());
        } // server stopped before the window passed
        try (RetiringPool after = pool(Duration.ofMinutes(10))) {
            after.resume();
            assertThat(after.retiring()).containsOnlyKeys(app.deploymentId());
            Await.until(Duration.ofSeconds(10), "the stored retirement is carried out", () -> runtime.get(app.deploymentId()).isEmpty());
            assertThat(TestApps.alive(app.pid())).isFalse();
        }
    }

    @Test
    void aReplacementKeepsOnePreviousInstanceWarmAndStopsTheOlderOnesAtOnce() {
        Instance oldest = runtime.start(TestApps.spec("v1", Map.of()), new RecordingLog());
        Instance older = runtime.start(TestApps.spec("v2", Map.of()), new RecordingLog());
        Instance previous = runtime.start(TestApps.spec("v3", Map.of()), new RecordingLog());
        AppSpec elsewhere = TestApps.spec("other", Map.of());
        Instance otherProject = runtime.start(new AppSpec(elsewhere.deploymentId(), "prj_other", elsewhere.artifact(), elsewhere.env(),
                elsewhere.secretValues(), elsewhere.instanceType()), new RecordingLog());
        try (RetiringPool pool = pool(Duration.ofMinutes(10))) {
            assertThat(pool.replaced(oldest.deploymentId())).isEmpty();
            assertThat(pool.replaced(older.deploymentId())).containsExactly(oldest.deploymentId());
            pool.retire(otherProject.deploymentId());
            assertThat(pool.replaced(previous.deploymentId())).containsExactly(older.deploymentId());

            assertThat(runtime.get(oldest.deploymentId())).as("stopped before the replacement returns").isEmpty();
            assertThat(runtime.get(older.deploymentId())).isEmpty();
            assertThat(TestApps.alive(oldest.pid())).isFalse();
            assertThat(TestApps.alive(older.pid())).isFalse();
            assertThat(pool.retiring()).containsOnlyKeys(previous.deploymentId(), otherProject.deploymentId());
            assertThat(TestApps.get(previous.port(), "/")).as("the one before stays warm for an instant rollback").isEqualTo("app:v3");
            assertThat(TestApps.get(otherProject.port(), "/")).as("another project's is its own").isEqualTo("app:other");
        }
    }

    @Test
    void aRetirementDueTheMomentItIsArmedIsCarriedOut() throws InterruptedException {
        // every reading of this clock is 10 s after the last: each retirement's timer is due as it is armed, and fires
        // while the retirement is being put in the pool (or a moment later); none may be left without a timer
        Instant start = Instant.now();
        AtomicLong readings = new AtomicLong();
        Clock racing = new Clock() {
            @Override public ZoneId getZone() { return ZoneOffset.UTC; }
            @Override public Clock withZone(ZoneId zone) { return this; }
            @Override public Instant instant() { return start.plusSeconds(10 * readings.incrementAndGet()); }
        };
        try (RetiringPool pool = new RetiringPool(runtime, fixture.store, racing, Duration.ofSeconds(1))) {
            // from more threads than there are cores, so that one is now and then descheduled between the two
            List<Thread> retiring = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int thread = t;
                retiring.add(Thread.ofPlatform().start(() -> {
                    for (int i = 0; i < 500; i++) pool.retire("dep_race" + thread + "_" + i);
                }));
            }
            for (Thread t : retiring) t.join();
            Await.until(Duration.ofSeconds(30), "every retirement to be carried out", () -> pool.retiring().isEmpty());
        }
    }

    @Test
    void aStopThatFailsIsTriedAgainUntilTheInstanceIsGone() {
        Instance app = runtime.start(TestApps.spec("v1", Map.of()), new RecordingLog());
        // the production check reads the database: here it is unreachable twice, then answers
        AtomicInteger asked = new AtomicInteger();
        Predicate<String> production = id -> {
            if (asked.incrementAndGet() <= 2) throw new IllegalStateException("the database is unreachable");
            return false;
        };
        try (RetiringPool pool = new RetiringPool(runtime, fixture.store, MicrosClock.system(), Duration.ofMillis(100),
                production, port -> { }, port -> 0)) {
            pool.retire(app.deploymentId());
            Await.until(Duration.ofSeconds(30), "the retired instance stops after two failed tries",
                    () -> runtime.get(app.deploymentId()).isEmpty());
            assertThat(asked.get()).isEqualTo(3);
            assertThat(TestApps.alive(app.pid())).isFalse();
            assertThat(pool.retiring()).isEmpty();
        }
    }
}
