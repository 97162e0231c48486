package dev.slipway.store;

import org.flywaydb.core.api.MigrationVersion;
import org.flywaydb.core.api.migration.Context;
import org.flywaydb.core.api.migration.JavaMigration;

import java.sql.Statement;

/**
 * Migration 90: on PostgreSQL, every committed change to a project, its env vars or its database notifies
 * {@link #PROJECTS} with the project's id, for the servers' project caches. A Java migration because it
 * is PostgreSQL's alone: the embedded store has a single server and records it as done with nothing to do.
 */
public final class ChangeNotices implements JavaMigration {
    public static final String PROJECTS = "slipway_project_changes";

    private static final String SQL = """
            CREATE FUNCTION slipway_notify_project_change() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_notify('%1$s', COALESCE(
                    (CASE WHEN TG_OP = 'DELETE' THEN to_jsonb(OLD) ELSE to_jsonb(NEW) END) ->> TG_ARGV[0], ''));
                RETURN NULL;
            END $$;
            CREATE TRIGGER projects_notify AFTER INSERT OR UPDATE OR DELETE ON projects
                FOR EACH ROW EXECUTE FUNCTION slipway_notify_project_change('id');
            CREATE TRIGGER project_env_vars_notify AFTER INSERT OR UPDATE OR DELETE ON project_env_vars
                FOR EACH ROW EXECUTE FUNCTION slipway_notify_project_change('project_id');
            CREATE TRIGGER databases_notify AFTER INSERT OR UPDATE OR DELETE ON databases
                FOR EACH ROW EXECUTE FUNCTION slipway_notify_project_change('project_id');
            """.formatted(PROJECTS);

    @Override
    public MigrationVersion getVersion() { return MigrationVersion.fromVersion("90"); }

    @Override
    public String getDescription() { return "project change notices"; }

    @Override
    public Integer getChecksum() { return SQL.hashCode(); }

    @Override
    public boolean canExecuteInTransaction() { return true; }

    @Override
    public void migrate(Context context) throws Exception {
        var connection = context.getConnection();
        if (!connection.getMetaData().getDatabaseProductName().equals("PostgreSQL")) return;
        try (Statement s = connection.createStatement()) {
            s.execute(SQL);
        }
    }
}
