package dev.slipway.store;

import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleListener;
import org.jdbi.v3.core.Handles;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.StatementContext;
import org.jdbi.v3.core.statement.StatementCustomizer;

import java.sql.PreparedStatement;
import java.util.regex.Pattern;

/**
 * What PostgreSQL's change notices do for the project cache, on the embedded store, where this server is the only
 * writer: a statement of this JVM that writes to a table a project's read shows (the project, its env vars, its
 * database, its registry login, its git settings) marks its thread, and once the thread's outermost handle closes (its
 * transaction committed or rolled back) the cache is told that some project changed. Like a notice, the telling comes
 * after the commit, so a read that began before it is not kept. A statement without those tables tells nothing.
 */
public final class EmbeddedWrites implements StatementCustomizer, HandleListener {
    private static final Pattern WRITES_SHOWN = Pattern.compile(
            "^\\s*(?:INSERT\\s+INTO|UPDATE|DELETE\\s+FROM|MERGE\\s+INTO)\\s+(?:projects|project_env_vars|databases|project_registry_logins|project_git)\\b",
            Pattern.CASE_INSENSITIVE);

    /** Open handles on this thread, and whether a statement on one of them wrote to a shown table. */
    private static final class OnThread {
        int open;
        boolean wrote;
    }

    private final ThreadLocal<OnThread> threads = ThreadLocal.withInitial(OnThread::new);
    private final Runnable told;

    private EmbeddedWrites(Runnable told) {
        this.told = told;
    }

    /** From now on {@code told} runs after each committed write to a shown table. */
    public static void install(Jdbi jdbi, Runnable told) {
        EmbeddedWrites w = new EmbeddedWrites(told);
        jdbi.addCustomizer(w);
        jdbi.getConfig(Handles.class).addListener(w);
    }

    @Override
    public void afterExecution(PreparedStatement statement, StatementContext ctx) {
        String sql = ctx.getRawSql();
        if (sql != null && WRITES_SHOWN.matcher(sql).find()) threads.get().wrote = true;
    }

    @Override
    public void handleCreated(Handle handle) {
        threads.get().open++;
    }

    @Override
    public void handleClosed(Handle handle) {
        OnThread t = threads.get();
        if (--t.open > 0) return;
        threads.remove();
        if (t.wrote) told.run();
    }
}
