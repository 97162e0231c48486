package dev.slipway.store;

/**
 * Migration 134: on PostgreSQL, a committed change to a project's registry login or git settings (what its read shows
 * beside it) notifies {@link ChangeNotices#PROJECTS} too, with the function migration 90 made.
 */
public final class ShownChangeNotices extends PostgresOnlyMigration {
    private static final String SQL = """
            CREATE TRIGGER project_registry_logins_notify AFTER INSERT OR UPDATE OR DELETE ON project_registry_logins
                FOR EACH ROW EXECUTE FUNCTION slipway_notify_project_change('project_id');
            CREATE TRIGGER project_git_notify AFTER INSERT OR UPDATE OR DELETE ON project_git
                FOR EACH ROW EXECUTE FUNCTION slipway_notify_project_change('project_id');
            """;

    public ShownChangeNotices() {
        super("134", "registry login and git settings change notices", SQL);
    }
}
