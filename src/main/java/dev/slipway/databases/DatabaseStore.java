package dev.slipway.databases;

import dev.slipway.projects.ProjectChanges;
import dev.slipway.store.StateMachine;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.mapper.RowMapper;

import java.time.Clock;
import java.util.List;
import java.util.Optional;

/** The {@code databases} table. */
final class DatabaseStore {
    private static final RowMapper<ProjectDatabase> MAPPER = (rs, ctx) -> new ProjectDatabase(
            rs.getString("id"), rs.getString("account_id"), rs.getString("project_id"), rs.getString("migration_id"),
            DbKind.parse(rs.getString("type")).orElseThrow(), rs.getString("action"), rs.getString("host"),
            rs.getInt("port"), rs.getString("db_name"), rs.getString("username"), rs.getString("options"),
            rs.getString("secret_enc"), DatabaseState.parse(rs.getString("state")),
            rs.getTimestamp("created_at").toInstant());

    private static final StateMachine<DatabaseState>.Stored STATE = DatabaseState.MACHINE.stored("databases", "state");

    private final Jdbi jdbi;
    private final Clock clock;
    private final ProjectChanges changes;

    DatabaseStore(Jdbi jdbi, Clock clock, ProjectChanges changes) {
        this.jdbi = jdbi;
        this.clock = clock;
        this.changes = changes;
    }

    void insert(Handle h, ProjectDatabase d) {
        h.createUpdate("""
                        INSERT INTO databases (id, account_id, project_id, migration_id, type, action, host, port,
                            db_name, username, options, secret_enc, state, created_at, updated_at)
                        VALUES (:id, :account, :project, :migration, :type, :action, :host, :port, :name, :user,
                            :options, :secret, :state, :at, :at)""")
                .bind("id", d.id()).bind("account", d.accountId()).bind("project", d.projectId())
                .bind("migration", d.migrationId()).bind("type", d.kind().label()).bind("action", d.action())
                .bind("host", d.host()).bind("port", d.port()).bind("name", d.name()).bind("user", d.user())
                .bind("options", d.options()).bind("secret", d.secretEnc()).bind("state", d.state().label())
                .bind("at", d.createdAt())
                .execute();
        changes.changedAfterCommit(h, d.projectId());
    }

    Optional<ProjectDatabase> find(String id) {
        return jdbi.withHandle(h -> h.createQuery("SELECT * FROM databases WHERE id = :id").bind("id", id)
                .map(MAPPER).findOne());
    }

    /** The project's database: the newest one (a project has at most one). */
    Optional<ProjectDatabase> forProject(String projectId) {
        return jdbi.withHandle(h -> h.createQuery(
                        "SELECT * FROM databases WHERE project_id = :p ORDER BY created_at DESC, id DESC LIMIT 1")
                .bind("p", projectId).map(MAPPER).findOne());
    }

    /** Databases whose migration failed and that still hold something to remove or forget. */
    List<ProjectDatabase> leftByFailedMigrations() {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT d.* FROM databases d JOIN migrations m ON m.id = d.migration_id
                        WHERE m.status = 'failed' AND d.state IN (<held>)
                        ORDER BY d.created_at""")
                .bindList("held", DatabaseState.MACHINE.labels(DatabaseState.held())).map(MAPPER).list());
    }

    /** True when the migration has failed (only then is what it made removed). */
    boolean migrationFailed(String migrationId) {
        return jdbi.withHandle(h -> h.createQuery("SELECT status FROM migrations WHERE id = :id").bind("id", migrationId)
                .mapTo(String.class).findOne()).map("failed"::equals).orElse(false);
    }

    /** Moves the database if it is in {@code from}; true when it moved. */
    boolean transition(ProjectDatabase d, DatabaseState from, DatabaseState to) {
        return move(d, from, to, "updated_at = :now");
    }

    /** Marks it dropped and forgets its secret. */
    void dropped(ProjectDatabase d) {
        move(d, d.state(), DatabaseState.DROPPED, "secret_enc = NULL, updated_at = :now");
    }

    /** Marks it failed (removing it failed) and forgets its secret: the admin needs none to try again. */
    void dropFailed(ProjectDatabase d) {
        move(d, d.state(), DatabaseState.FAILED, "secret_enc = NULL, updated_at = :now");
    }

    private boolean move(ProjectDatabase d, DatabaseState from, DatabaseState to, String alsoSet) {
        return jdbi.withHandle(h -> STATE.move(h, d.id(), from, to, alsoSet, clock.instant(),
                moved -> changes.changedAfterCommit(moved, d.projectId())));
    }
}
