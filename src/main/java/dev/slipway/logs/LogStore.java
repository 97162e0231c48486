package dev.slipway.logs;

import java.util.Collection;
import dev.slipway.store.NewestRows;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.mapper.RowMapper;

import java.time.Clock;
import java.time.Instant;
import java.util.List;

/**
 * Log entries in the store, so every server can read every run's log and a restart loses none.
 * <p>
 * A run's lines ({@link #sink}, {@link #append(String, Level, String)}) are written by a {@link LogWriter}
 * in batches, off the run's path; an entry appended inside a transaction is written there and then. So that
 * a log reads in the order things happened, and a run's end is never seen before its lines, a state change
 * with its entry {@link #flush flushes} the queued lines first, outside its transaction; readers here flush too.
 */
public final class LogStore implements AutoCloseable {
    static final int MAX_MESSAGE = 8000;
    /** Rows per INSERT statement: 4 parameters each, well within every driver's limit. */
    private static final int INSERT_ROWS = 200;
    private static final RowMapper<LogEntry> MAPPER = (rs, ctx) -> new LogEntry(rs.getLong("seq"),
            rs.getTimestamp("at").toInstant(), rs.getString("level"), rs.getString("message"));

    /** The newest lines a log keeps: an app that prints without end does not fill the store (or its disk). */
    public static final int KEEP_LINES = 50_000;

    private final Jdbi jdbi;
    private final Clock clock;
    private final LogWriter writer;
    private final NewestRows newest;

    public LogStore(Jdbi jdbi, Clock clock) {
        this(jdbi, clock, KEEP_LINES);
    }

    /** @param keepLines the newest lines a log keeps; older ones go once it holds a tenth more */
    LogStore(Jdbi jdbi, Clock clock, int keepLines) {
        this.jdbi = jdbi;
        this.clock = clock;
        this.newest = new NewestRows(jdbi, "log_entries", "owner_id", keepLines);
        this.writer = new LogWriter(this::insertBatch);
    }

    /** Queues an entry for the writer (written at once by the caller once the store is closed). */
    public void append(String ownerId, Level level, String message) {
        Instant at = clock.instant();
        if (!writer.add(ownerId, at, level, message)) {
            jdbi.useTransaction(h -> insert(h, ownerId, List.of(new LogWriter.Pending(0, ownerId, at, level, message))));
        }
    }

    /**
     * Returns once every entry queued before this call is in the store. Never call it inside a transaction
     * that changed a log's owner row: the writer waits for that row's lock.
     */
    public void flush() {
        writer.flush();
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
        append(h, ownerId, List.of(new Line(level, message)));
    }

    /** One entry of {@link #append(Handle, String, List)}. */
    public record Line(Level level, String message) {}

    /**
     * Several entries of one log, in this order, inside the caller's transaction as
     * {@link #append(Handle, String, Level, String)} does, with one lock and one INSERT for all of them.
     */
    public void append(Handle h, String ownerId, List<Line> lines) {
        Instant at = clock.instant();
        insert(h, ownerId, lines.stream().map(l -> new LogWriter.Pending(0, ownerId, at, l.level(), l.message())).toList());
    }

    /** What an app prints goes through here: a log that grew a tenth past what it keeps loses its oldest lines. */
    private void insertBatch(String ownerId, List<LogWriter.Pending> entries) {
        jdbi.useTransaction(h -> insert(h, ownerId, entries));
        newest.added(ownerId, entries.size());
    }

    /** Locks the owner's row (see {@link #append(Handle, String, Level, String)}), then inserts the entries in order. */
    private static void insert(Handle h, String ownerId, List<LogWriter.Pending> entries) {
        String table = ownerTable(ownerId);
        if (table != null) {
            h.createQuery("SELECT id FROM " + table + " WHERE id = :o FOR UPDATE").bind("o", ownerId)
                    .mapTo(String.class).findOne();
        }
        for (int from = 0; from < entries.size(); from += INSERT_ROWS) {
            List<LogWriter.Pending> rows = entries.subList(from, Math.min(entries.size(), from + INSERT_ROWS));
            StringBuilder sql = new StringBuilder("INSERT INTO log_entries (owner_id, at, level, message) VALUES ");
            for (int i = 0; i < rows.size(); i++) {
                sql.append(i == 0 ? "" : ", ").append("(:o, :at").append(i).append(", :l").append(i).append(", :m").append(i).append(')');
            }
            var insert = h.createUpdate(sql.toString()).bind("o", ownerId);
            for (int i = 0; i < rows.size(); i++) {
                LogWriter.Pending e = rows.get(i);
                String text = e.message().length() > MAX_MESSAGE ? e.message().substring(0, MAX_MESSAGE - 1) + "…" : e.message();
                insert.bind("at" + i, e.at()).bind("l" + i, e.level().label()).bind("m" + i, text);
            }
            insert.execute();
        }
    }

    /** The table whose row owns a log, by the id's prefix (a constant, never input); null for others. */
    private static String ownerTable(String ownerId) {
        if (ownerId.startsWith("dep_")) return "deployments";
        if (ownerId.startsWith("mig_")) return "migrations";
        return null;
    }

    /** Entries after {@code afterSeq} (0 for the start), oldest first, including those queued until now. */
    public List<LogEntry> after(String ownerId, long afterSeq, int limit) {
        flush();
        return jdbi.withHandle(h -> h.createQuery(
                        "SELECT * FROM log_entries WHERE owner_id = :o AND seq > :after ORDER BY seq LIMIT :limit")
                .bind("o", ownerId).bind("after", afterSeq).bind("limit", limit).map(MAPPER).list());
    }

    /** The last {@code n} entries, oldest first, including those queued until now. */
    public List<LogEntry> last(String ownerId, int n) {
        flush();
        return jdbi.withHandle(h -> last(h, ownerId, n));
    }

    /** The last {@code n} entries, oldest first, as the caller's transaction sees them (queued ones not: flush first). */
    public List<LogEntry> last(Handle h, String ownerId, int n) {
        List<LogEntry> newestFirst = h.createQuery(
                        "SELECT * FROM log_entries WHERE owner_id = :o ORDER BY seq DESC LIMIT :n")
                .bind("o", ownerId).bind("n", n).map(MAPPER).list();
        return newestFirst.reversed();
    }

    /** A sink that writes a run's lines here, with secret values masked. */
    public LogSink sink(String ownerId, Collection<String> secretValues) {
        Masker masker = new Masker(secretValues);
        return (level, message) -> append(ownerId, level, masker.mask(message));
    }

    /** Writes the queued entries; later ones are written by their callers. */
    @Override
    public void close() {
        writer.close();
    }
}
