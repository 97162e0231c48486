package dev.slipway.jobs;

import dev.slipway.accounts.Tier;
import dev.slipway.testing.Await;
import dev.slipway.testing.DatabasePerStore;
import dev.slipway.testing.EachStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** A wake starts one idle worker per new job, and two jobs woken back to back both start at once. */
@EachStore
class WorkersTest {
    @RegisterExtension
    static final DatabasePerStore database = DatabasePerStore.open(4);
    static JobStore jobs;

    @EachStore.Before
    static void open() {
        jobs = new JobStore(database.jdbi(), Clock.systemUTC());
    }

    private String queue() {
        String account = "acc_" + System.nanoTime();
        String project = "prj_" + System.nanoTime();
        String subject = "dep_" + System.nanoTime();
        database.jdbi().useTransaction(h -> {
            h.execute("INSERT INTO accounts (id, name, tier, created_at) VALUES (?, ?, ?, ?)",
                    account, account, Tier.TEAM.label(), Instant.now());
            h.execute("INSERT INTO projects (id, account_id, name, source, region, created_at) VALUES (?, ?, ?, 'zip', 'us-east-1', ?)",
                    project, account, project.replace('_', '-'), Instant.now());
            jobs.enqueue(h, Job.DEPLOYMENT, subject, project);
        });
        return subject;
    }

    @Test
    void twoJobsWokenBackToBackBothStartWithoutWaitingForThePoll() throws Exception {
        Map<String, Long> started = new ConcurrentHashMap<>();
        CountDownLatch second = new CountDownLatch(2);
        // a poll far beyond the test: only a wake can start a job, so a lost wake shows as a job never started
        try (Workers workers = new Workers(jobs, 2, "node-" + System.nanoTime(), Duration.ofHours(1), java.time.Clock.systemUTC())) {
            workers.start(Map.of(Job.DEPLOYMENT, (job, lease) -> {
                started.put(job.subjectId(), System.nanoTime());
                second.countDown();
                try {
                    second.await(10, TimeUnit.SECONDS); // each holds its slot until both run
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
            Await.until(Duration.ofSeconds(10), "both workers past their first empty claim, waiting for a wake",
                    () -> workers.idle() == 2);
            String a = queue();
            String b = queue();
            workers.wake();
            workers.wake();
            assertThat(second.await(30, TimeUnit.SECONDS)).as("both jobs started by their wakes").isTrue();
            assertThat(started).containsOnlyKeys(a, b);
        }
    }
}
