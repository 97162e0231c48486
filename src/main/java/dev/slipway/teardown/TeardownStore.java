package dev.slipway.teardown;

import dev.slipway.deployments.DeploymentStatus;
import dev.slipway.jobs.Job;
import dev.slipway.jobs.JobState;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The rows of a project's deletion: the mark that hides it from the API ({@code projects.deleting_at}), what the
 * teardown reads of it, and the final removal of every row that names it.
 */
public final class TeardownStore {
    /**
     * A project once its deletion was asked for, or before.
     *
     * @param deletingSince when the deletion was asked for; null: not asked
     */
    public record Marked(String id, String accountId, String name, String domain, Instant deletingSince,
                         boolean deleteDatabase) {
        public boolean deleting() { return deletingSince != null; }
    }

    /** A deployment of the project and where it stands. */
    public record Run(String id, DeploymentStatus status) {}

    private final Jdbi jdbi;
    private final Clock clock;

    public TeardownStore(Jdbi jdbi, Clock clock) {
        this.jdbi = jdbi;
        this.clock = clock;
    }

    public Jdbi jdbi() { return jdbi; }

    /** The project, deleting or not; empty once it is gone. */
    public Optional<Marked> find(String projectId) {
        return jdbi.withHandle(h -> find(h, projectId, ""));
    }

    private static Optional<Marked> find(Handle h, String projectId, String lock) {
        return h.createQuery("SELECT id, account_id, name, domain, deleting_at, delete_database FROM projects WHERE id = :p" + lock)
                .bind("p", projectId)
                .map((rs, ctx) -> new Marked(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
                        rs.getTimestamp(5) == null ? null : rs.getTimestamp(5).toInstant(), rs.getBoolean(6)))
                .findOne();
    }

    /**
     * Marks the project deleting (once: a repeated request keeps the first time; {@code deleteDatabase} only ever turns
     * on) and queues its teardown unless one is queued or running. Inside the caller's transaction; the row stays
     * locked until it ends.
     *
     * @return the project as marked, and whether a job was queued now
     */
    public Optional<Marking> mark(Handle h, String projectId, boolean deleteDatabase) {
        Optional<Marked> before = find(h, projectId, " FOR UPDATE");
        if (before.isEmpty()) return Optional.empty();
        h.createUpdate("""
                        UPDATE projects SET deleting_at = COALESCE(deleting_at, :now),
                               delete_database = (delete_database OR :drop) WHERE id = :p""")
                .bind("now", clock.instant()).bind("drop", deleteDatabase).bind("p", projectId).execute();
        boolean queued = h.createQuery("SELECT COUNT(*) FROM jobs WHERE project_id = :p AND kind = :kind AND state <> :done")
                .bind("done", JobState.DONE.label()).bind("p", projectId).bind("kind", Job.PROJECT_DELETION).mapTo(Integer.class).one() > 0;
        return Optional.of(new Marking(find(h, projectId, "").orElseThrow(), !queued));
    }

    /** @param queue true: no teardown is queued or running yet, the caller queues one */
    public record Marking(Marked project, boolean queue) {}

    /** Every deployment of the project, newest first. */
    public List<Run> runs(String projectId) {
        return jdbi.withHandle(h -> h.createQuery(
                        "SELECT id, status FROM deployments WHERE project_id = :p ORDER BY created_at DESC, id DESC")
                .bind("p", projectId)
                .map((rs, ctx) -> new Run(rs.getString(1), DeploymentStatus.parse(rs.getString(2)))).list());
    }

    /** Instances the store says run for the project on other servers than {@code node}: their servers stop them. */
    public List<String> instancesElsewhere(String projectId, String node) {
        return jdbi.withHandle(h -> h.createQuery(
                        "SELECT deployment_id FROM runtime_instances WHERE project_id = :p AND owner_node <> :node")
                .bind("p", projectId).bind("node", node).mapTo(String.class).list());
    }

    /**
     * Removes every row that names the project, the project's last, in one transaction: after it, nothing of the
     * project is left in the store but the finished job that did it. The database row goes too: the caller dropped
     * the database first, or keeps it on its server.
     */
    public void forget(String projectId, String jobId) {
        jdbi.useTransaction(h -> {
            for (String owner : List.of("deployments", "migrations", "cron_runs")) {
                h.createUpdate("DELETE FROM log_entries WHERE owner_id IN (SELECT id FROM " + owner + " WHERE project_id = :p)")
                        .bind("p", projectId).execute();
            }
            h.createUpdate("DELETE FROM jobs WHERE project_id = :p AND id <> :job").bind("p", projectId).bind("job", jobId).execute();
            for (String table : List.of("cron_runs", "app_usage", "request_logs", "alert_incidents", "alert_rules", "log_drains", "commit_statuses", "runtime_instances", "artifacts", "deployments", "migrations",
                    "databases", "project_env_vars", "project_registry_logins", "project_git")) {
                h.createUpdate("DELETE FROM " + table + " WHERE project_id = :p").bind("p", projectId).execute();
            }
            h.createUpdate("DELETE FROM projects WHERE id = :p").bind("p", projectId).execute();
        });
    }
}
