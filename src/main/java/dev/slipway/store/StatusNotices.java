package dev.slipway.store;

import dev.slipway.core.StatusChanges;

import java.util.List;

/**
 * Migration 91: on PostgreSQL, every committed change of a deployment's or a migration's status notifies
 * {@link #CHANNEL} with its id, so that every server's long-polls end at once, not only those of the
 * server that made the change. PostgreSQL's alone, like {@link ChangeNotices}.
 */
public final class StatusNotices extends PostgresOnlyMigration {
    public static final String CHANNEL = "slipway_status_changes";

    private static final String SQL = """
            CREATE FUNCTION slipway_notify_status_change() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_notify('%1$s', NEW.id);
                RETURN NULL;
            END $$;
            CREATE TRIGGER deployments_status_notify AFTER UPDATE OF status ON deployments
                FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION slipway_notify_status_change();
            CREATE TRIGGER migrations_status_notify AFTER UPDATE OF status ON migrations
                FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION slipway_notify_status_change();
            """.formatted(CHANNEL);

    public StatusNotices() {
        super("91", "status change notices", SQL);
    }

    /** Hands each notice's id to every one of {@code targets} (a record nobody waits on is ignored there). */
    public static ChangeFeed.Listener to(List<StatusChanges> targets) {
        return new ChangeFeed.Listener() {
            @Override
            public void accept(String id) {
                for (StatusChanges t : targets) t.changed(id);
            }

            @Override
            public void listening() {
                // long-polls also read the store every 200 ms: nothing is lost while the feed is down
            }

            @Override
            public void deaf() {
                // as above
            }
        };
    }
}
