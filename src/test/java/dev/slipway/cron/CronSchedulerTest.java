package dev.slipway.cron;

import dev.slipway.appconfig.Schedule;
import dev.slipway.testing.DatabasePerStore;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.MutableClock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two servers' schedulers on one store: each time of a job is run by one of them only, a time while the last run
 * still runs is recorded skipped, times passed during downtime are recorded missed (and not run late), and a run whose
 * server stopped beating is recorded failed.
 */
@EachStore
class CronSchedulerTest {
    @RegisterExtension
    static final DatabasePerStore database = DatabasePerStore.open(6);

    private final MutableClock clock = new MutableClock();
    private final List<String> started = Collections.synchronizedList(new ArrayList<>());
    private CronRunStore runs;
    private String project;

    @BeforeEach
    void setUp() {
        runs = new CronRunStore(database.jdbi(), clock);
        project = "prj_cron_" + System.nanoTime();
        // the clock at the start of a minute, and the job live since before it
        clock.advance(Duration.between(clock.instant(), clock.instant().truncatedTo(ChronoUnit.MINUTES).plusSeconds(60)));
    }

    private CronJob job(String expression, Instant since) {
        return new CronJob(project, "dep_" + project, "tick", Schedule.parse(expression, ZoneId.of("UTC")), List.of("true"), since, null);
    }

    /** A server whose runs end at once with exit code 0, recording which server ran them. */
    private CronScheduler server(String node, CronJob job) {
        return new CronScheduler(() -> List.of(job), runs, (j, r) -> {
            started.add(node + " " + r.scheduledFor());
            runs.finish(r.id(), 0, null);
        }, node, clock);
    }

    private List<CronRun> all() {
        List<CronRun> out = new ArrayList<>(runs.page(project, new dev.slipway.store.PageRequest(100, null)).data());
        out.sort((a, b) -> a.scheduledFor().compareTo(b.scheduledFor()));
        return out;
    }

    @Test
    void eachTimeRunsOnceOnOneOfTwoServersTickingAtOnce() throws Exception {
        CronJob job = job("* * * * *", clock.instant().minusSeconds(30));
        CronScheduler a = server("a", job);
        CronScheduler b = server("b", job);
        for (int minute = 0; minute < 5; minute++) {
            CountDownLatch go = new CountDownLatch(1);
            Thread ta = Thread.ofVirtual().start(() -> { await(go); a.tick(); });
            Thread tb = Thread.ofVirtual().start(() -> { await(go); b.tick(); });
            go.countDown();
            ta.join();
            tb.join();
            a.tick(); // a second tick in the same minute starts nothing
            Await.ended(a, b); // else the next minute finds this one's run still running, and skips
            clock.advance(Duration.ofSeconds(60));
        }
        Await.ended(a, b);
        List<CronRun> recorded = all();
        assertThat(recorded).hasSize(5).allMatch(r -> r.status() == CronRunStatus.SUCCEEDED && r.exitCode() == 0);
        assertThat(recorded.stream().map(CronRun::scheduledFor).distinct()).hasSize(5);
        assertThat(started).hasSize(5);
    }

    @Test
    void aTimeWhileTheLastRunStillRunsIsSkippedAndOneOfADeadServerFails() {
        CronJob job = job("* * * * *", clock.instant().minusSeconds(30));
        CronScheduler hangs = new CronScheduler(() -> List.of(job), runs, (j, r) -> { }, "hangs", clock);
        hangs.tick(); // claimed, still running: its runner never ends it
        clock.advance(Duration.ofSeconds(60));
        CronScheduler other = server("other", job);
        other.tick();
        hangs.tick(); // its heartbeat: the run is alive
        List<CronRun> recorded = all();
        assertThat(recorded).extracting(CronRun::status).containsExactly(CronRunStatus.RUNNING, CronRunStatus.SKIPPED);
        assertThat(recorded.get(1).reason()).contains("previous run was still running");

        // its server stops beating: after the stale time another server ends it as failed, and runs the next time
        clock.advance(CronScheduler.STALE.plusSeconds(60));
        other.tick();
        Await.ended(other);
        recorded = all();
        assertThat(recorded.getFirst().status()).isEqualTo(CronRunStatus.FAILED);
        assertThat(recorded.getFirst().reason()).contains("server stopped");
        assertThat(recorded.getLast().status()).isEqualTo(CronRunStatus.SUCCEEDED);
    }

    @Test
    void timesPassedWhileNoServerRanAreRecordedMissedAndOnlyTheNewestRuns() {
        CronJob job = job("*/5 * * * *", clock.instant().minusSeconds(30));
        CronScheduler a = server("a", job);
        a.tick();
        Await.ended(a); // a time within the last 30 s runs now: ended before the downtime, or the newest would be skipped
        int before = all().size();
        clock.advance(Duration.ofMinutes(31)); // downtime: six or seven times pass
        a.tick();
        Await.ended(a);
        List<CronRun> recorded = all();
        List<CronRun> missed = recorded.stream().filter(r -> r.status() == CronRunStatus.MISSED).toList();
        assertThat(missed).hasSizeBetween(5, 6).allMatch(r -> r.reason().contains("no server ran"));
        assertThat(recorded.getLast().status()).isEqualTo(CronRunStatus.SUCCEEDED);
        assertThat(recorded.size()).isEqualTo(before + missed.size() + 1);
        assertThat(started).hasSize(before + 1);
    }

    @Test
    void expressionsThatAreNotFiveFieldsOrNeverFireAreRefused() {
        for (String bad : List.of("* * * *", "0 0 31 2 *", "61 * * * *", "@reboot", "* * * * * *")) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> Schedule.parse(bad, ZoneId.of("UTC")))
                    .as(bad).isInstanceOf(IllegalArgumentException.class);
        }
        Schedule paris = Schedule.parse("0 9 * * *", ZoneId.of("Europe/Paris"));
        Instant nineInParis = Instant.parse("2026-07-01T07:00:00Z"); // summer time: UTC+2
        assertThat(paris.lastAt(nineInParis.plusSeconds(90))).contains(nineInParis);
    }

    private static void await(CountDownLatch go) {
        try {
            go.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits for the runs the schedulers started on threads of their own. */
    private static final class Await {
        static void ended(CronScheduler... servers) {
            dev.slipway.testing.Await.until(Duration.ofSeconds(30), "the runs to end",
                    () -> java.util.Arrays.stream(servers).allMatch(s -> s.running().isEmpty()));
        }
    }
}
