package dev.slipway.cron;

import dev.slipway.core.Ids;
import dev.slipway.store.Keyset;
import dev.slipway.store.Page;
import dev.slipway.store.PageRequest;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.StatementException;

import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The runs of cron jobs. A job's time runs once across every server sharing the store: the row of (project, job,
 * time) is inserted by one of them only (a unique key), and that one runs it.
 */
public final class CronRunStore {
    private static final RowMapper<CronRun> MAPPER = (rs, ctx) -> new CronRun(rs.getString("id"), rs.getString("project_id"),
            rs.getString("deployment_id"), rs.getString("name"), rs.getTimestamp("scheduled_for").toInstant(),
            CronRunStatus.parse(rs.getString("status")), (Integer) rs.getObject("exit_code", Integer.class), rs.getString("reason"),
            instant(rs.getTimestamp("started_at")), instant(rs.getTimestamp("finished_at")), rs.getTimestamp("created_at").toInstant());

    private final Jdbi jdbi;
    private final Clock clock;
    private final Ids ids;

    public CronRunStore(Jdbi jdbi, Clock clock) {
        this.jdbi = jdbi;
        this.clock = clock;
        this.ids = new Ids(clock);
    }

    /** The latest time recorded for the job, run or not. */
    public Optional<Instant> latest(String projectId, String name) {
        return jdbi.withHandle(h -> h.createQuery("SELECT MAX(scheduled_for) FROM cron_runs WHERE project_id = :p AND name = :n")
                .bind("p", projectId).bind("n", name).mapTo(Timestamp.class).findOne().map(Timestamp::toInstant));
    }

    /** Whether a run of the job is running, its server's heartbeat no older than {@code freshSince}. */
    public boolean running(String projectId, String name, Instant freshSince) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT COUNT(*) FROM cron_runs
                        WHERE project_id = :p AND name = :n AND status = :running AND heartbeat_at >= :fresh""")
                .bind("p", projectId).bind("n", name).bind("running", CronRunStatus.RUNNING.label()).bind("fresh", freshSince)
                .mapTo(Integer.class).one() > 0);
    }

    /**
     * Records the job's time as this server's to run ({@code running}), or as skipped with {@code reason}; empty when
     * another server recorded it first.
     */
    public Optional<CronRun> claim(CronJob job, Instant at, String node, String skippedBecause) {
        Instant now = clock.instant();
        boolean skipped = skippedBecause != null;
        CronRun run = new CronRun(ids.next("cron"), job.projectId(), job.deploymentId(), job.name(), at,
                skipped ? CronRunStatus.SKIPPED : CronRunStatus.RUNNING, null, skippedBecause, skipped ? null : now,
                skipped ? now : null, now);
        return insert(run, skipped ? null : node) ? Optional.of(run) : Optional.empty();
    }

    /** Records times that passed while no server ran the job; one another server recorded already is left as it is. */
    public void missed(CronJob job, List<Instant> times, String reason) {
        Instant now = clock.instant();
        for (Instant at : times) {
            insert(new CronRun(ids.next("cron"), job.projectId(), job.deploymentId(), job.name(), at, CronRunStatus.MISSED,
                    null, reason, null, null, now), null);
        }
    }

    private boolean insert(CronRun r, String node) {
        try {
            jdbi.useHandle(h -> h.createUpdate("""
                            INSERT INTO cron_runs (id, project_id, deployment_id, name, scheduled_for, status, reason, owner_node,
                                                   heartbeat_at, started_at, finished_at, created_at)
                            VALUES (:id, :p, :d, :n, :at, :status, :reason, :node, :beat, :started, :finished, :created)""")
                    .bind("id", r.id()).bind("p", r.projectId()).bind("d", r.deploymentId()).bind("n", r.name())
                    .bind("at", r.scheduledFor()).bind("status", r.status().label()).bind("reason", r.reason())
                    .bind("node", node).bind("beat", node == null ? null : r.createdAt()).bind("started", r.startedAt())
                    .bind("finished", r.finishedAt()).bind("created", r.createdAt()).execute());
            return true;
        } catch (StatementException e) {
            if (taken(r)) return false; // the unique key: another server has this time
            throw e;
        }
    }

    private boolean taken(CronRun r) {
        return jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM cron_runs WHERE project_id = :p AND name = :n AND scheduled_for = :at")
                .bind("p", r.projectId()).bind("n", r.name()).bind("at", r.scheduledFor()).mapTo(Integer.class).one() > 0);
    }

    /** Ends a running run: succeeded with exit code 0, else failed with its code (null: it never ran) and why. */
    public void finish(String id, Integer exitCode, String reason) {
        CronRunStatus to = exitCode != null && exitCode == 0 && reason == null ? CronRunStatus.SUCCEEDED : CronRunStatus.FAILED;
        jdbi.useHandle(h -> CronRunStatus.MACHINE.stored("cron_runs", "status")
                .moveTo(h, to, "exit_code = :code, reason = :reason, finished_at = :now", "id = :id")
                .bind("code", exitCode).bind("reason", reason).bind("now", clock.instant()).bind("id", id).execute());
    }

    /** This server still runs these: their heartbeat moves on. */
    public void heartbeat(String node) {
        jdbi.useHandle(h -> h.createUpdate("UPDATE cron_runs SET heartbeat_at = :now WHERE status = :running AND owner_node = :node")
                .bind("now", clock.instant()).bind("running", CronRunStatus.RUNNING.label()).bind("node", node).execute());
    }

    /** Ends as failed the runs whose server stopped beating before {@code staleBefore}: it died. Returns how many. */
    public int abandoned(Instant staleBefore) {
        return fail("heartbeat_at < :stale", "stale", staleBefore);
    }

    /** Ends as failed the runs {@code node} left running: it restarted, and what it ran stopped with it. */
    public int abandonedBy(String node) {
        return fail("owner_node = :node", "node", node);
    }

    private int fail(String where, String name, Object value) {
        return jdbi.withHandle(h -> CronRunStatus.MACHINE.stored("cron_runs", "status")
                .moveTo(h, CronRunStatus.FAILED, "reason = :reason, finished_at = :now", where)
                .bind("reason", "its server stopped during the run").bind("now", clock.instant()).bind(name, value).execute());
    }

    public Optional<CronRun> find(String id) {
        return jdbi.withHandle(h -> h.createQuery("SELECT * FROM cron_runs WHERE id = :id").bind("id", id).map(MAPPER).findOne());
    }

    /** The project's runs, newest first. */
    public Page<CronRun> page(String projectId, PageRequest request) {
        return jdbi.withHandle(h -> Keyset.page(h, "cron_runs", List.of("project_id = :p"), Map.of("p", projectId), request,
                MAPPER, CronRun::createdAt, CronRun::id));
    }

    private static Instant instant(Timestamp t) {
        return t == null ? null : t.toInstant();
    }
}
