package dev.slipway.jobs;

import dev.slipway.accounts.Tier;
import dev.slipway.store.Dialect;
import dev.slipway.testing.DatabasePerStore;
import dev.slipway.testing.EachStore;
import java.time.ZoneOffset;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** Build slots are shared fairly: no account runs more than its tier allows, and the least busy account goes first. */
@EachStore
class JobStoreTest {
    private static final Duration LEASE = Duration.ofMinutes(1);

    final Dialect kind = database.kind();

    @RegisterExtension
    static final DatabasePerStore database = DatabasePerStore.open(4);
    static JobStore jobs;

    @EachStore.Before
    static void open() {
        jobs = new JobStore(database.jdbi(), Clock.systemUTC());
    }

    private String account(Tier tier) {
        String id = "acc_" + System.nanoTime();
        database.jdbi().useHandle(h -> h.execute("INSERT INTO accounts (id, name, tier, created_at) VALUES (?, ?, ?, ?)",
                id, id, tier.label(), Instant.now()));
        return id;
    }

    /** A project of the account with one queued job; returns the job's subject. */
    private String queue(String accountId) {
        String project = "prj_" + System.nanoTime();
        String subject = "dep_" + System.nanoTime();
        database.jdbi().useTransaction(h -> {
            h.execute("INSERT INTO projects (id, account_id, name, source, region, created_at) VALUES (?, ?, ?, 'zip', 'us-east-1', ?)",
                    project, accountId, project.replace('_', '-'), Instant.now());
            jobs.enqueue(h, Job.DEPLOYMENT, subject, project);
        });
        return subject;
    }

    private Optional<Job> claim() {
        return jobs.claim("worker-" + kind, LEASE);
    }

    private void drain() {
        for (Optional<Job> j = claim(); j.isPresent(); j = claim()) jobs.finish(j.get().id(), "worker-" + kind);
    }

    @Test
    void aFreeAccountBuildsOneAtATimeAndItsQueueDoesNotHoldAnotherAccountsFirstBuild() {
        drain();
        String greedy = account(Tier.FREE);
        String patient = account(Tier.FREE);
        List<String> greedyRuns = new ArrayList<>();
        for (int i = 0; i < 3; i++) greedyRuns.add(queue(greedy));
        String patientRun = queue(patient); // queued last

        Job first = claim().orElseThrow();
        assertThat(first.subjectId()).isEqualTo(greedyRuns.get(0));
        Job second = claim().orElseThrow();
        assertThat(second.subjectId()).as("the other account's first build, not the greedy one's second").isEqualTo(patientRun);
        assertThat(claim()).as("both free accounts are at their one build").isEmpty();

        jobs.finish(first.id(), "worker-" + kind);
        assertThat(claim().orElseThrow().subjectId()).isEqualTo(greedyRuns.get(1));
    }

    /**
     * Workers (of one server or several) that claim at the same time: a free account's one build at once holds
     * even when each of them saw the account idle before any of them had claimed.
     */
    @Test
    void workersClaimingAtTheSameTimeKeepAnAccountToItsBuildsAtOnce() throws Exception {
        drain();
        int workers = 4;
        for (int round = 0; round < 15; round++) {
            String free = account(Tier.FREE);
            for (int i = 0; i < workers; i++) queue(free);
            var start = new CyclicBarrier(workers);
            List<Future<Optional<Job>>> claims = new ArrayList<>();
            try (var pool = Executors.newFixedThreadPool(workers)) {
                for (int i = 0; i < workers; i++) {
                    claims.add(pool.submit(() -> {
                        start.await();
                        return claim();
                    }));
                }
            }
            List<Job> won = new ArrayList<>();
            for (var c : claims) c.get().ifPresent(won::add);
            assertThat(won).as("round %d: claimed at once for a free account", round).hasSize(1);
            drain();
        }
    }

    @Test
    void aTeamAccountBuildsFourAtOnceAndTheLeastBusyAccountGoesFirst() {
        drain();
        String team = account(Tier.TEAM);
        String pro = account(Tier.PRO);
        List<String> teamRuns = new ArrayList<>();
        for (int i = 0; i < 6; i++) teamRuns.add(queue(team));
        List<String> proRuns = new ArrayList<>();
        for (int i = 0; i < 3; i++) proRuns.add(queue(pro));

        List<String> order = new ArrayList<>();
        for (Optional<Job> j = claim(); j.isPresent(); j = claim()) order.add(j.get().subjectId());
        // round robin while both have room: team, pro, team, pro, then team up to 4 (pro stops at 2)
        assertThat(order).containsExactly(teamRuns.get(0), proRuns.get(0), teamRuns.get(1), proRuns.get(1),
                teamRuns.get(2), teamRuns.get(3));
    }

    @Test
    void aJobHeldFromItsCreationIsHeldOnlyWhenNothingOfItsProjectIsAhead() {
        drain();
        String account = account(Tier.TEAM);
        String ahead = queue(account);
        String project = projectOf(ahead);
        String owner = "server-" + kind;

        // behind a ready job of its project: queued as ready, not held
        Optional<Job> behind = database.jdbi().inTransaction(h -> jobs.enqueueHeld(h, Job.DEPLOYMENT, "dep_behind_" + kind, project, owner, LEASE));
        assertThat(behind).isEmpty();
        assertThat(state("dep_behind_" + kind)).isEqualTo("ready");

        // once the project's jobs are done: held by the owner from the insert, with a lease, claimable by nobody else
        drain();
        Optional<Job> held = database.jdbi().inTransaction(h -> jobs.enqueueHeld(h, Job.DEPLOYMENT, "dep_held_" + kind, project, owner, LEASE));
        assertThat(held).isPresent();
        assertThat(held.get().attempts()).isEqualTo(1);
        assertThat(state("dep_held_" + kind)).isEqualTo("running");
        assertThat(claim()).isEmpty();
        assertThat(jobs.heartbeat(held.get().id(), owner, LEASE)).isTrue();
        assertThat(jobs.heartbeat(held.get().id(), "someone-else", LEASE)).isFalse();
        jobs.finish(held.get().id(), owner);
        assertThat(state("dep_held_" + kind)).isEqualTo("done");
    }

    @Test
    void twoJobsOfOneProjectNeverRunAtOnceWhateverTheirCreationTimesSay() {
        drain();
        String account = account(Tier.TEAM);
        String first = queue(account);
        String project = projectOf(first);
        drain();
        String owner = "server-" + kind;
        // a rollback's job held from its creation, and a deploy's job whose transaction started a second earlier
        // and committed after it (so it went unseen by the held one's check)
        Job held = database.jdbi().inTransaction(h -> jobs.enqueueHeld(h, Job.DEPLOYMENT, "dep_rb_" + kind, project, owner, LEASE))
                .orElseThrow();
        JobStore earlier = new JobStore(database.jdbi(), Clock.offset(Clock.systemUTC(), Duration.ofSeconds(-1)));
        database.jdbi().useTransaction(h -> earlier.enqueue(h, Job.DEPLOYMENT, "dep_early_" + kind, project));
        assertThat(claim()).as("the earlier-created job waits while the held one runs").isEmpty();
        jobs.finish(held.id(), owner);
        Job early = claim().orElseThrow();
        assertThat(early.subjectId()).isEqualTo("dep_early_" + kind);
        jobs.finish(early.id(), "worker-" + kind);

        // two jobs created in the same instant: one runs, the other waits for it
        JobStore frozen = new JobStore(database.jdbi(), Clock.fixed(Instant.now(), ZoneOffset.UTC));
        database.jdbi().useTransaction(h -> {
            frozen.enqueue(h, Job.DEPLOYMENT, "dep_tie1_" + kind, project);
            frozen.enqueue(h, Job.DEPLOYMENT, "dep_tie2_" + kind, project);
        });
        Job one = claim().orElseThrow();
        assertThat(claim()).as("the other job of the same instant").isEmpty();
        jobs.finish(one.id(), "worker-" + kind);
        assertThat(claim()).isPresent();
        drain();
    }

    private String projectOf(String subject) {
        return database.jdbi().withHandle(h -> h.createQuery("SELECT project_id FROM jobs WHERE subject_id = :s")
                .bind("s", subject).mapTo(String.class).one());
    }

    private String state(String subject) {
        return database.jdbi().withHandle(h -> h.createQuery("SELECT state FROM jobs WHERE subject_id = :s")
                .bind("s", subject).mapTo(String.class).one());
    }
}
