package dev.slipway.jobs;

import dev.slipway.accounts.AccountLock;
import dev.slipway.accounts.Tier;
import dev.slipway.core.Ids;
import dev.slipway.store.StateMachine;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static dev.slipway.jobs.JobState.DONE;
import static dev.slipway.jobs.JobState.READY;
import static dev.slipway.jobs.JobState.RUNNING;

/**
 * Durable jobs in the store. A job is claimed by a conditional UPDATE (exactly one worker wins,
 * on H2 or on any number of servers sharing PostgreSQL), held by a lease that heartbeats extend,
 * and claimable again when its lease expires (the worker died): that is how a run survives kill -9.
 * Jobs of one project run one at a time, in order of creation. The project's row is the lock of its line:
 * a claim and a held enqueue take it, so two jobs of one project never run at once, even when their
 * transactions commit in the same milliseconds (then the one that got the lock first runs first).
 */
public final class JobStore {
    private static final StateMachine<JobState>.Stored JOBS = JobState.MACHINE.stored("jobs", "state");

    /**
     * No unfinished job of the project of the job {@code %1$s} goes before it: created earlier, or running under
     * a lease (a job held from its creation, or one claimed while an earlier one was still uncommitted).
     */
    private static final String NONE_AHEAD = """
            NOT EXISTS (SELECT 1 FROM jobs e WHERE e.project_id = %1$s.project_id AND e.id <> %1$s.id AND e.state <> %2$s
                    AND (e.created_at < %1$s.created_at OR (e.state = %3$s AND e.lease_expires_at >= :now)))
            """.replace("%2$s", DONE.literal()).replace("%3$s", RUNNING.literal());

    /** How many jobs of the account {@code %1$s} run now under a live lease (its builds at once). */
    private static final String ACCOUNT_BUSY = """
            (SELECT COUNT(*) FROM jobs r JOIN projects rp ON rp.id = r.project_id
             WHERE rp.account_id = %1$s AND r.state = %2$s AND r.lease_expires_at >= :now)""".replace("%2$s", RUNNING.literal());

    private final Jdbi jdbi;
    private final Clock clock;
    private final Ids ids;

    public JobStore(Jdbi jdbi, Clock clock) {
        this.jdbi = jdbi;
        this.clock = clock;
        this.ids = new Ids(clock);
    }

    /** Enqueues inside the caller's transaction, so the job exists exactly when its record does. */
    public void enqueue(Handle h, String kind, String subjectId, String projectId) {
        h.createUpdate("""
                        INSERT INTO jobs (id, kind, subject_id, project_id, state, attempts, created_at)
                        VALUES (:id, :kind, :subject, :project, :state, 0, :at)""")
                .bind("state", READY.label()).bind("id", ids.next("job")).bind("kind", kind).bind("subject", subjectId)
                .bind("project", projectId).bind("at", clock.instant()).execute();
    }

    /**
     * Enqueues inside the caller's transaction a job already held by {@code owner}, when no unfinished job
     * of its project is ahead of it (jobs of a project run in order); else a ready job, and empty. Call it first
     * in the transaction: it locks the project's row, and a lock taken after an insert that references the
     * project (a key share on PostgreSQL) could deadlock with another such transaction.
     */
    public Optional<Job> enqueueHeld(Handle h, String kind, String subjectId, String projectId, String owner,
                                     Duration lease) {
        lockLine(h, projectId);
        boolean behind = h.createQuery("SELECT COUNT(*) FROM jobs WHERE project_id = :project AND state <> :done")
                .bind("project", projectId).bind("done", DONE.label()).mapTo(Integer.class).one() > 0;
        if (behind) {
            enqueue(h, kind, subjectId, projectId);
            return Optional.empty();
        }
        String id = ids.next("job");
        Instant now = clock.instant();
        h.createUpdate("""
                        INSERT INTO jobs (id, kind, subject_id, project_id, state, attempts, created_at, lease_owner,
                                          lease_expires_at)
                        VALUES (:id, :kind, :subject, :project, :state, 1, :at, :owner, :until)""")
                .bind("state", RUNNING.label()).bind("id", id).bind("kind", kind).bind("subject", subjectId).bind("project", projectId)
                .bind("at", now).bind("owner", owner).bind("until", now.plus(lease)).execute();
        return Optional.of(new Job(id, kind, subjectId, projectId, 1));
    }

    /**
     * Claims a runnable job: ready, or running with an expired lease; no older unfinished job of the same
     * project ahead of it; and its account below its tier's {@link Tier#buildsAtOnce()}. Fair across
     * accounts: the account with the fewest jobs running goes first, then the oldest job, so one account's
     * queue never holds another's first build.
     */
    public Optional<Job> claim(String owner, Duration lease) {
        Instant now = clock.instant();
        record Candidate(Job job, long busy, String accountId, int slots) {}
        List<Candidate> candidates = jdbi.withHandle(h -> h.createQuery("""
                        SELECT j.id, j.kind, j.subject_id, j.project_id, j.attempts, a.tier, p.account_id,
                               """ + ACCOUNT_BUSY.formatted("p.account_id") + """
                                AS busy
                        FROM jobs j JOIN projects p ON p.id = j.project_id JOIN accounts a ON a.id = p.account_id
                        WHERE (j.state = :ready OR (j.state = :running AND j.lease_expires_at < :now))
                          AND\s""" + NONE_AHEAD.formatted("j") + """
                        ORDER BY busy, j.created_at, j.id LIMIT 50""")
                .bind("now", now).bind("ready", READY.label()).bind("running", RUNNING.label())
                .map((rs, ctx) -> new Candidate(new Job(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
                        rs.getInt(5)), rs.getLong(8), rs.getString(7), Tier.parse(rs.getString(6)).buildsAtOnce()))
                .list()).stream()
                .filter(c -> c.busy() < c.slots())
                .toList();
        for (Candidate candidate : candidates) {
            Job c = candidate.job();
            int won = jdbi.inTransaction(h -> {
                lockLine(h, c.projectId());
                // then the account's row: claims of its projects count its running jobs one after the other (the
                // candidates' count above was read before other workers' claims committed)
                AccountLock.hold(h, candidate.accountId());
                return JOBS.moveTo(h, RUNNING, "lease_owner = :owner, lease_expires_at = :until, attempts = attempts + 1",
                                "id = :id AND attempts = :attempts AND (state = :ready OR lease_expires_at < :now) AND "
                                        + ACCOUNT_BUSY.formatted(":account") + " < :slots AND " + NONE_AHEAD.formatted("jobs"))
                        .bind("ready", READY.label()).bind("owner", owner).bind("until", now.plus(lease)).bind("id", c.id())
                        .bind("attempts", c.attempts()).bind("now", now).bind("account", candidate.accountId())
                        .bind("slots", candidate.slots()).execute();
            });
            if (won == 1) return Optional.of(new Job(c.id(), c.kind(), c.subjectId(), c.projectId(), c.attempts() + 1));
        }
        return Optional.empty();
    }

    /** Locks the project's row until the transaction ends: what it then reads of the project's jobs is settled. */
    private static void lockLine(Handle h, String projectId) {
        h.createQuery("SELECT id FROM projects WHERE id = :project FOR UPDATE").bind("project", projectId)
                .mapTo(String.class).findOne();
    }

    /** Extends the lease; false when this worker no longer holds it (it must stop working on the job). */
    public boolean heartbeat(String jobId, String owner, Duration lease) {
        return jdbi.withHandle(h -> h.createUpdate("""
                        UPDATE jobs SET lease_expires_at = :until
                        WHERE id = :id AND lease_owner = :owner AND state = :running""")
                .bind("running", RUNNING.label()).bind("until", clock.instant().plus(lease)).bind("id", jobId).bind("owner", owner).execute()) == 1;
    }

    /**
     * Makes the running jobs of an earlier run of node {@code node} (leases named {@code <node>/...}) claimable
     * now; {@code keep} is the caller's own lease name. Returns how many.
     */
    public int releaseLeasesOfNode(String node, String keep) {
        String prefix = node + "/";
        return jdbi.withHandle(h -> h.createUpdate("""
                        UPDATE jobs SET lease_expires_at = :expired
                        WHERE state = :running AND LEFT(lease_owner, :n) = :prefix AND lease_owner <> :keep
                          AND lease_expires_at >= :now""")
                .bind("running", RUNNING.label()).bind("now", clock.instant()).bind("expired", clock.instant().minusSeconds(1)).bind("n", prefix.length()).bind("prefix", prefix).bind("keep", keep)
                .execute());
    }

    public void finish(String jobId, String owner) {
        jdbi.useHandle(h -> finish(h, jobId, owner));
    }

    public void finish(Handle h, String jobId, String owner) {
        JOBS.moveTo(h, DONE, "finished_at = :at, lease_owner = NULL, lease_expires_at = NULL", "id = :id AND lease_owner = :owner")
                .bind("at", clock.instant()).bind("id", jobId).bind("owner", owner).execute();
    }

    /** Ends a job that has not started (a cancelled queued deployment). */
    public void finishUnclaimed(Handle h, String subjectId) {
        JOBS.moveTo(h, DONE, "finished_at = :at", "subject_id = :s AND state = :ready").bind("ready", READY.label())
                .bind("at", clock.instant()).bind("s", subjectId).execute();
    }

    /** Jobs waiting for a worker, and when the oldest of them was queued (empty when none waits). */
    public record Queue(int waiting, Optional<Instant> oldest) {}

    public Queue queue() {
        return jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM jobs WHERE state = :ready")
                .bind("ready", READY.label())
                .map((rs, ctx) -> new Queue(rs.getInt("n"), Optional.ofNullable(rs.getTimestamp("oldest")).map(java.sql.Timestamp::toInstant)))
                .one());
    }

    public int runningCount() {
        return jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM jobs WHERE state = :running AND lease_expires_at >= :now")
                .bind("running", RUNNING.label()).bind("now", clock.instant()).mapTo(Integer.class).one());
    }

    /** Jobs of the account's projects running now (live leases). */
    public int runningCount(String accountId) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT COUNT(*) FROM jobs j JOIN projects p ON p.id = j.project_id
                        WHERE p.account_id = :a AND j.state = :running AND j.lease_expires_at >= :now""")
                .bind("running", RUNNING.label()).bind("a", accountId).bind("now", clock.instant()).mapTo(Integer.class).one());
    }
}
