package dev.slipway.statuses;

import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.mapper.RowMapper;

import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The commit statuses waiting to be reported (table {@code commit_statuses}): written in the transaction of the
 * deployment's change, sent by whichever server takes the row's lease (a conditional UPDATE), retried until one
 * attempt succeeds or the schedule ends.
 */
public final class StatusStore {
    /** How long a reported (or abandoned) status stays, for the operator's look. */
    public static final Duration RETENTION = Duration.ofDays(30);
    private static final int MAX_ERROR = 1000;
    private static final RowMapper<Pending> MAPPER = (rs, ctx) -> new Pending(rs.getString("deployment_id"),
            rs.getString("project_id"), rs.getString("source"), rs.getString("repo"), rs.getString("commit_sha"),
            new CommitStatus(CommitStatus.State.parse(rs.getString("state")), rs.getString("context"),
                    rs.getString("description"), rs.getString("target_url")),
            rs.getInt("version"), rs.getInt("attempts"), instant(rs.getTimestamp("next_attempt_at")), rs.getString("last_error"));

    /** A status as stored: due at {@code nextAttemptAt}, or sent or given up when that is null. */
    public record Pending(String deploymentId, String projectId, String source, String repo, String commitSha,
                          CommitStatus status, int version, int attempts, Instant nextAttemptAt, String lastError) {}

    private final Jdbi jdbi;
    private final Clock clock;

    public StatusStore(Jdbi jdbi, Clock clock) {
        this.jdbi = jdbi;
        this.clock = clock;
    }

    /** The deployment's status is now {@code s}, due at once, replacing one not sent yet; in the caller's transaction. */
    void put(Handle h, String deploymentId, String projectId, String source, String repo, String sha, CommitStatus s) {
        Instant now = clock.instant();
        int changed = h.createUpdate("""
                        UPDATE commit_statuses SET commit_sha = :sha, context = :context, state = :state, description = :text,
                            target_url = :url, version = version + 1, attempts = 0, next_attempt_at = :now, last_error = NULL,
                            updated_at = :now
                        WHERE deployment_id = :d""")
                .bind("d", deploymentId).bind("sha", sha).bind("context", s.context()).bind("state", s.state().label())
                .bind("text", s.description()).bind("url", s.targetUrl()).bind("now", now).execute();
        if (changed > 0) return;
        h.createUpdate("""
                        INSERT INTO commit_statuses (deployment_id, project_id, source, repo, commit_sha, context, state,
                            description, target_url, version, attempts, next_attempt_at, updated_at)
                        VALUES (:d, :p, :source, :repo, :sha, :context, :state, :text, :url, 1, 0, :now, :now)""")
                .bind("d", deploymentId).bind("p", projectId).bind("source", source).bind("repo", repo).bind("sha", sha)
                .bind("context", s.context()).bind("state", s.state().label()).bind("text", s.description())
                .bind("url", s.targetUrl()).bind("now", now).execute();
    }

    /** Statuses due now whose lease is free, oldest first. */
    List<Pending> due(int limit) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT * FROM commit_statuses
                        WHERE next_attempt_at <= :now AND (lease_until IS NULL OR lease_until < :now)
                        ORDER BY next_attempt_at LIMIT :n""")
                .bind("now", clock.instant()).bind("n", limit).map(MAPPER).list());
    }

    /** When the next status is due, if any is waiting. */
    Optional<Instant> nextDue() {
        return jdbi.withHandle(h -> h.createQuery("SELECT MIN(next_attempt_at) FROM commit_statuses")
                .map((rs, ctx) -> instant(rs.getTimestamp(1))).findOne()).filter(at -> at != null);
    }

    /** Takes the status's lease for one attempt; false when another server holds it or a newer state replaced it. */
    boolean claim(Pending p, String owner, Duration lease) {
        Instant now = clock.instant();
        return jdbi.withHandle(h -> h.createUpdate("""
                        UPDATE commit_statuses SET lease_owner = :o, lease_until = :until
                        WHERE deployment_id = :d AND version = :v AND (lease_until IS NULL OR lease_until < :now)""")
                .bind("o", owner).bind("until", now.plus(lease)).bind("d", p.deploymentId()).bind("v", p.version())
                .bind("now", now).execute()) == 1;
    }

    /**
     * The attempt's outcome: sent ({@code error} null), to retry at {@code retryAt}, or given up. False when a newer
     * state replaced this one meanwhile: that one stays due, and the outcome is dropped.
     */
    boolean attempted(Pending p, String owner, String error, Instant retryAt) {
        return jdbi.withHandle(h -> {
            int n = h.createUpdate("""
                            UPDATE commit_statuses SET attempts = attempts + 1, next_attempt_at = :next, last_error = :error,
                                lease_owner = NULL, lease_until = NULL, updated_at = :now
                            WHERE deployment_id = :d AND version = :v""")
                    .bind("next", retryAt).bind("error", clip(error)).bind("now", clock.instant())
                    .bind("d", p.deploymentId()).bind("v", p.version()).execute();
            if (n == 0) {
                h.createUpdate("UPDATE commit_statuses SET lease_owner = NULL, lease_until = NULL WHERE deployment_id = :d AND lease_owner = :o")
                        .bind("d", p.deploymentId()).bind("o", owner).execute();
            }
            return n == 1;
        });
    }

    /** The deployment's status as stored (tests, operators). */
    public Optional<Pending> find(String deploymentId) {
        return jdbi.withHandle(h -> h.createQuery("SELECT * FROM commit_statuses WHERE deployment_id = :d")
                .bind("d", deploymentId).map(MAPPER).findOne());
    }

    /** Deletes statuses sent or given up longer than {@code retention} ago. */
    public int sweep(Duration retention) {
        return jdbi.withHandle(h -> h.createUpdate("DELETE FROM commit_statuses WHERE next_attempt_at IS NULL AND updated_at < :before")
                .bind("before", clock.instant().minus(retention)).execute());
    }

    private static String clip(String error) {
        if (error == null) return null;
        return error.length() > MAX_ERROR ? error.substring(0, MAX_ERROR - 1) + "…" : error;
    }

    private static Instant instant(Timestamp ts) {
        return ts == null ? null : ts.toInstant();
    }
}
