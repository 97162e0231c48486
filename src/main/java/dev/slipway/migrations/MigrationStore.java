package dev.slipway.migrations;

import dev.slipway.store.Keyset;
import dev.slipway.store.Page;
import dev.slipway.store.PageRequest;
import dev.slipway.core.StatusChanges;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogStore;
import dev.slipway.runs.RunRecords;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.mapper.RowMapper;

import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

public final class MigrationStore {
    private static final RowMapper<Migration> MAPPER = (rs, ctx) -> new Migration(
            rs.getString("id"), rs.getString("account_id"), rs.getString("project_id"), rs.getString("deployment_id"),
            rs.getString("source"), rs.getString("repo"), rs.getString("branch"), rs.getString("framework"),
            rs.getString("upload_id"), rs.getString("database_type"), rs.getString("database_action"),
            rs.getString("database_id"), MigrationStatus.parse(rs.getString("status")),
            instant(rs.getTimestamp("created_at")), instant(rs.getTimestamp("started_at")),
            instant(rs.getTimestamp("completed_at")));

    private final Jdbi jdbi;
    private final RunRecords<Migration, MigrationStatus> runs;

    /** Told of every new migration and every status change, inside the transaction that makes it. */
    @FunctionalInterface
    public interface Listener {
        Listener NONE = (h, m) -> {};

        void changed(Handle h, Migration m);
    }

    public MigrationStore(Jdbi jdbi, Clock clock, LogStore logs) {
        this(jdbi, clock, logs, Listener.NONE);
    }

    public MigrationStore(Jdbi jdbi, Clock clock, LogStore logs, Listener listener) {
        this.jdbi = jdbi;
        this.runs = new RunRecords<>(jdbi, clock, logs, "migrations", MAPPER, MigrationStatus.MACHINE, to -> switch (to) {
            case PROCESSING -> "started_at = COALESCE(started_at, :now)";
            case COMPLETE, FAILED -> "completed_at = :now";
            default -> "";
        }, listener::changed);
    }

    /** Status changes made through this store, for long-polls. */
    public StatusChanges changes() { return runs.changes(); }

    public void insert(Handle h, Migration m) {
        h.createUpdate("""
                        INSERT INTO migrations (id, account_id, project_id, deployment_id, source, repo, branch, framework,
                            upload_id, database_type, database_action, database_id, status, created_at, started_at)
                        VALUES (:id, :account, :project, :deployment, :source, :repo, :branch, :framework, :upload,
                            :dbType, :dbAction, :dbId, :status, :at, :started)""")
                .bind("id", m.id()).bind("account", m.accountId()).bind("project", m.projectId())
                .bind("deployment", m.deploymentId()).bind("source", m.source()).bind("repo", m.repo())
                .bind("branch", m.branch()).bind("framework", m.framework()).bind("upload", m.uploadId())
                .bind("dbType", m.databaseType()).bind("dbAction", m.databaseAction()).bind("dbId", m.databaseId())
                .bind("status", m.status().label()).bind("at", m.createdAt()).bind("started", m.startedAt())
                .execute();
        runs.inserted(h, m);
    }

    /** Records the framework a migration's build detected, when the request named none. */
    public void recordFramework(String id, String framework) {
        jdbi.useHandle(h -> h.createUpdate("UPDATE migrations SET framework = :f WHERE id = :id AND framework IS NULL")
                .bind("f", framework).bind("id", id).execute());
    }

    public Optional<Migration> find(String id) {
        return runs.find(id);
    }

    /** The framework the project's latest migration detected (or was given); empty when none says. */
    public Optional<String> framework(String projectId) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT framework FROM migrations WHERE project_id = :p AND framework IS NOT NULL
                        ORDER BY created_at DESC, id DESC LIMIT 1""")
                .bind("p", projectId).mapTo(String.class).findOne());
    }

    public Optional<Migration> find(Handle h, String id) {
        return runs.find(h, id);
    }

    public Page<Migration> page(String accountId, MigrationStatus status, PageRequest request) {
        List<String> filters = new ArrayList<>(List.of("account_id = :account"));
        Map<String, Object> binds = new HashMap<>(Map.of("account", accountId));
        if (status != null) {
            filters.add("status = :status");
            binds.put("status", status.label());
        }
        return jdbi.withHandle(h -> Keyset.page(h, "migrations", filters, binds, request, MAPPER,
                Migration::createdAt, Migration::id));
    }

    /** Moves the migration if it is still in {@code from}, with its log entry. */
    public boolean transition(Handle h, String id, MigrationStatus from, MigrationStatus to, Level level, String message) {
        return runs.transition(h, id, from, to, level, message);
    }

    public boolean transition(String id, MigrationStatus from, MigrationStatus to, Level level, String message) {
        return runs.transition(id, from, to, level, message);
    }

    private static Instant instant(Timestamp ts) {
        return ts == null ? null : ts.toInstant();
    }
}
