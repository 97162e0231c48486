package dev.slipway.logs;

import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.mapper.RowMapper;

import java.time.Clock;
import java.util.List;

/** Log entries in the store, so every server can read every run's log and a restart loses none. */
public final class LogStore {
    static final int MAX_MESSAGE = 8000;
    private static final RowMapper<LogEntry> MAPPER = (rs, ctx) -> new LogEntry(rs.getLong("seq"),
            rs.getTimestamp("at").toInstant(), rs.getString("level"), rs.getString("message"));

    private final Jdbi jdbi;
    private final Clock clock;

    public LogStore(Jdbi jdbi, Clock clock) {
        this.jdbi = jdbi;
        this.clock = clock;
    }

    public void append(String ownerId, Level level, String message) {
        jdbi.useTransaction(h -> append(h, ownerId, level, message));
    }

    /**
     * Appends inside the caller's transaction (a state change and its log entry land together).
     * <p>
     * Readers page and follow by {@code seq > cursor}, so an entry must never become visible after one
     * with a higher seq: the writers of one log (the stdout and stderr pumps, the runner, a cancel)
     * would otherwise commit out of seq order and a follower would step over the late one for good.
     * The owner's row (its deployment or migration) is locked before the seq is taken, so the
     * appends of one log are serialized until their transactions commit, on every server.
     */
    public void append(Handle h, String ownerId, Level level, String message) {
        String table = ownerTable(ownerId);
        if (table != null) {
            h.createQuery("SELECT id FROM " + table + " WHERE id = :o FOR UPDATE").bind("o", ownerId)
                    .mapTo(String.class).findOne();
        }
        String text = message.length() > MAX_MESSAGE ? message.substring(0, MAX_MESSAGE - 1) + "…" : message;
        h.createUpdate("INSERT INTO log_entries (owner_id, at, level, message) VALUES (:o, :at, :l, :m)")
                .bind("o", ownerId).bind("at", clock.instant()).bind("l", level.label()).bind("m", text).execute();
    }

    /** The table whose row owns a log, by the id's prefix (a constant, never input); null for others. */
    private static String ownerTable(String ownerId) {
        if (ownerId.startsWith("dep_")) return "deployments";
        if (ownerId.startsWith("mig_")) return "migrations";
        return null;
    }

    /** Entries after {@code afterSeq} (0 for the start), oldest first. */
    public List<LogEntry> after(String ownerId, long afterSeq, int limit) {
        return jdbi.withHandle(h -> h.createQuery(
                        "SELECT * FROM log_entries WHERE owner_id = :o AND seq > :after ORDER BY seq LIMIT :limit")
                .bind("o", ownerId).bind("after", afterSeq).bind("limit", limit).map(MAPPER).list());
    }

    /** The last {@code n} entries, oldest first, as the caller's transaction sees them. */
    public List<LogEntry> last(Handle h, String ownerId, int n) {
        List<LogEntry> newestFirst = h.createQuery(
                        "SELECT * FROM log_entries WHERE owner_id = :o ORDER BY seq DESC LIMIT :n")
                .bind("o", ownerId).bind("n", n).map(MAPPER).list();
        return newestFirst.reversed();
    }

    /** A sink that writes a run's lines here, with secret values masked. */
    public LogSink sink(String ownerId, java.util.Collection<String> secretValues) {
        Masker masker = new Masker(secretValues);
        return (level, message) -> append(ownerId, level, masker.mask(message));
    }
}
