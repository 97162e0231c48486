package dev.slipway.store;

import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.Update;

import java.time.Instant;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One state machine: the one table of its allowed moves, and the guarded update that makes a move in
 * the store. Each state enum holds its machine; the store owning the rows makes the moves through
 * {@link #stored}.
 */
public final class StateMachine<S extends Enum<S>> {
    private final String name;
    private final Function<S, String> label;
    private final Map<S, Set<S>> moves;

    private StateMachine(String name, Function<S, String> label, Map<S, Set<S>> moves) {
        this.name = name;
        this.label = label;
        this.moves = moves;
    }

    /** @param name what the machine's records are called in errors ("deployment") */
    public static <S extends Enum<S>> Builder<S> builder(Class<S> type, String name, Function<S, String> label) {
        return new Builder<>(type, name, label);
    }

    public boolean allowed(S from, S to) {
        return moves.get(from).contains(to);
    }

    /** Fails loudly: an illegal move is a bug in a pipeline, never a user error. */
    public void check(S from, S to) {
        if (!allowed(from, to)) {
            throw new IllegalStateException("illegal " + name + " transition " + label(from) + " → " + label(to));
        }
    }

    public String label(S state) {
        return label.apply(state);
    }

    /** The states from which a record may move to {@code to}. */
    public Set<S> predecessors(S to) {
        Set<S> from = new TreeSet<>();
        moves.forEach((state, targets) -> {
            if (targets.contains(to)) from.add(state);
        });
        return from;
    }

    /** The stored labels of a group of states, to bind as an SQL IN-list ({@code bindList}). */
    public List<String> labels(Collection<S> states) {
        return states.stream().sorted().map(label).toList();
    }

    /** The machine's moves on the rows of {@code table}, whose state is in {@code column} (constants, never input). */
    public Stored stored(String table, String column) {
        return new Stored(table, column);
    }

    public final class Stored {
        private final String table;
        private final String column;

        private Stored(String table, String column) {
            this.table = table;
            this.column = column;
        }

        /**
         * Moves row {@code id} to {@code to} if it is still in {@code from} (another actor may have moved it
         * first), also setting {@code alsoSet} (SQL assignments, may use {@code :now}; "" for none). On a move
         * runs {@code moved} on the same handle (its log line, listener, notices). True when it moved.
         */
        public boolean move(Handle h, String id, S from, S to, String alsoSet, Instant now, Consumer<Handle> moved) {
            check(from, to);
            int n = h.createUpdate("UPDATE " + table + " SET " + column + " = :to"
                            + (alsoSet.isEmpty() ? "" : ", " + alsoSet)
                            + " WHERE id = :id AND " + column + " = :from")
                    .bind("to", label(to)).bind("from", label(from)).bind("id", id).bind("now", now).execute();
            if (n == 1) moved.accept(h);
            return n == 1;
        }

        /**
         * The guarded update of a move to {@code to} from whichever allowed predecessor a row is in: {@code UPDATE
         * table SET column = :to[, alsoSet] WHERE column IN (predecessors)[ AND (where)]}. {@code :to} and the
         * predecessors are bound; the caller binds its own names and executes. {@code alsoSet} and {@code where}
         * are the caller's SQL (constants, never input); "" for none.
         */
        public Update moveTo(Handle h, S to, String alsoSet, String where) {
            Set<S> from = predecessors(to);
            if (from.isEmpty()) throw new IllegalStateException("no " + name + " state may move to " + label(to));
            return h.createUpdate("UPDATE " + table + " SET " + column + " = :to"
                            + (alsoSet.isEmpty() ? "" : ", " + alsoSet)
                            + " WHERE " + column + " IN (<from>)" + (where.isEmpty() ? "" : " AND (" + where + ")"))
                    .bind("to", label(to)).bindList("from", labels(from));
        }
    }

    /** The table, one row per state: {@code from(QUEUED, BUILDING, FAILED)}; a final state gets {@code from(LIVE)}. */
    public static final class Builder<S extends Enum<S>> {
        private final Class<S> type;
        private final String name;
        private final Function<S, String> label;
        private final Map<S, Set<S>> moves;

        private Builder(Class<S> type, String name, Function<S, String> label) {
            this.type = type;
            this.name = name;
            this.label = label;
            this.moves = new EnumMap<>(type);
        }

        @SafeVarargs
        public final Builder<S> from(S from, S... to) {
            Set<S> targets = EnumSet.noneOf(type);
            targets.addAll(List.of(to));
            if (moves.put(from, targets) != null) throw new IllegalArgumentException("two rows for " + from);
            return this;
        }

        /** Every state must have its row, so a state added to the enum cannot be forgotten here. */
        public StateMachine<S> build() {
            for (S s : type.getEnumConstants()) {
                if (!moves.containsKey(s)) throw new IllegalArgumentException("no row for " + name + " state " + s);
            }
            return new StateMachine<>(name, label, Collections.unmodifiableMap(new EnumMap<>(moves)));
        }
    }
}
