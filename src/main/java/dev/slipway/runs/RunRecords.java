package dev.slipway.runs;

import dev.slipway.core.StatusChanges;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogStore;
import dev.slipway.store.StateMachine;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.mapper.RowMapper;

import java.time.Clock;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The bookkeeping every run (a deployment, a migration) shares: its row read back, and each status move made
 * with its log entry, its listener told and its long-polls woken, all in the move's transaction.
 *
 * @param <R> the run's record
 * @param <S> its status
 */
public final class RunRecords<R, S extends Enum<S>> {
    private final Jdbi jdbi;
    private final Clock clock;
    private final LogStore logs;
    private final String table;
    private final RowMapper<R> mapper;
    private final StateMachine<S>.Stored status;
    private final Function<S, String> alsoSet;
    private final BiConsumer<Handle, R> listener;
    private final StatusChanges changes = new StatusChanges();

    /**
     * @param alsoSet  what a move to a status also sets (SQL assignments that may use {@code :now}; "" for none)
     * @param listener told of every new record and every status change, inside the transaction that makes it
     */
    public RunRecords(Jdbi jdbi, Clock clock, LogStore logs, String table, RowMapper<R> mapper, StateMachine<S> machine,
                      Function<S, String> alsoSet, BiConsumer<Handle, R> listener) {
        this.jdbi = jdbi;
        this.clock = clock;
        this.logs = logs;
        this.table = table;
        this.mapper = mapper;
        this.status = machine.stored(table, "status");
        this.alsoSet = alsoSet;
        this.listener = listener;
    }

    public Jdbi jdbi() { return jdbi; }

    /** Status changes made through this store, for long-polls. */
    public StatusChanges changes() { return changes; }

    /** A record inserted by the caller in {@code h}: its listener is told. */
    public void inserted(Handle h, R record) {
        listener.accept(h, record);
    }

    public Optional<R> find(String id) {
        return jdbi.withHandle(h -> find(h, id));
    }

    public Optional<R> find(Handle h, String id) {
        return h.createQuery("SELECT * FROM " + table + " WHERE id = :id").bind("id", id).map(mapper).findOne();
    }

    /**
     * Moves the run from one status to another if it is still in {@code from}, with its log entry, in one
     * transaction. False when another actor moved it first (e.g. a cancel).
     */
    public boolean transition(String id, S from, S to, Level level, String message) {
        logs.flush(); // the lines logged before come before this entry
        return jdbi.inTransaction(h -> transition(h, id, from, to, level, message));
    }

    public boolean transition(Handle h, String id, S from, S to, Level level, String message) {
        return status.move(h, id, from, to, alsoSet.apply(to), clock.instant(), moved -> {
            logs.append(moved, id, level, message);
            listener.accept(moved, find(moved, id).orElseThrow());
            changes.changedAfterCommit(moved, id);
        });
    }
}
