package dev.slipway.store;

/**
 * Migration 90: on PostgreSQL, every committed change to a project, its env vars or its database notifies
 * {@link #PROJECTS} with the project's id, for the servers' project caches. A Java migration because it
 * is PostgreSQL's alone: the embedded store has a single server and records it as done with nothing to do.
 */
public final class ChangeNotices extends PostgresOnlyMigration {
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

    public ChangeNotices() {
        super("90", "project change notices", SQL);
    }
}
