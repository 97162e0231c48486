package dev.slipway.drains;

import dev.slipway.secrets.SecretBox;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.mapper.RowMapper;

import java.net.URI;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;

/** {@code log_drains}, and the lines a drain ships next. */
public final class DrainStore {
    private final Jdbi jdbi;
    private final SecretBox secrets;
    private final RowMapper<LogDrain> mapper;

    public DrainStore(Jdbi jdbi, SecretBox secrets) {
        this.jdbi = jdbi;
        this.secrets = secrets;
        this.mapper = (rs, ctx) -> new LogDrain(rs.getString("id"), rs.getString("project_id"), rs.getString("account_id"),
                URI.create(secrets.decrypt(rs.getString("url_encrypted"))), rs.getString("url_shown"),
                new LinkedHashSet<>(Arrays.asList(rs.getString("sources").split(","))), rs.getLong("log_cursor"),
                rs.getLong("request_cursor"), rs.getLong("lines_sent"), rs.getInt("failures"),
                instant(rs.getTimestamp("failing_since")), rs.getString("last_error"), instant(rs.getTimestamp("next_try_at")),
                rs.getTimestamp("created_at").toInstant());
    }

    private static Instant instant(Timestamp t) {
        return t == null ? null : t.toInstant();
    }

    /** A new drain, which ships what is logged from now on. */
    public LogDrain create(String id, String projectId, String accountId, URI url, String shownUrl, List<String> sources, Instant now) {
        jdbi.useTransaction(h -> h.createUpdate("""
                        INSERT INTO log_drains (id, project_id, account_id, url_encrypted, url_shown, sources, log_cursor,
                                                request_cursor, created_at)
                        VALUES (:id, :p, :a, :url, :shown, :sources, :logs, :requests, :now)""")
                .bind("id", id).bind("p", projectId).bind("a", accountId).bind("url", secrets.encrypt(url.toString()))
                .bind("shown", shownUrl).bind("sources", String.join(",", sources)).bind("logs", highest(h, "log_entries"))
                .bind("requests", highest(h, "request_logs")).bind("now", now).execute());
        return find(id).orElseThrow();
    }

    /** The highest seq of a table (a constant, never input) now, 0 when it is empty. */
    static long highest(Handle h, String table) {
        return h.createQuery("SELECT COALESCE(MAX(seq), 0) FROM " + table).mapTo(Long.class).one();
    }

    long highest(String table) {
        return jdbi.withHandle(h -> highest(h, table));
    }

    public Optional<LogDrain> find(String id) {
        return jdbi.withHandle(h -> h.createQuery("SELECT * FROM log_drains WHERE id = :id").bind("id", id).map(mapper).findOne());
    }

    public List<LogDrain> list(String projectId) {
        return jdbi.withHandle(h -> h.createQuery("SELECT * FROM log_drains WHERE project_id = :p ORDER BY created_at, id")
                .bind("p", projectId).map(mapper).list());
    }

    public int count(String projectId) {
        return jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM log_drains WHERE project_id = :p").bind("p", projectId)
                .mapTo(Integer.class).one());
    }

    public void delete(String id) {
        jdbi.useHandle(h -> h.createUpdate("DELETE FROM log_drains WHERE id = :id").bind("id", id).execute());
    }

    /**
     * The drains due now that this server holds or takes the lease of, until {@code leaseUntil}: one server ships a
     * drain at a time, and another takes it over once the lease has run out (its server stopped).
     */
    List<LogDrain> take(String node, Instant now, Instant leaseUntil) {
        return jdbi.inTransaction(h -> {
            List<String> ids = h.createQuery("""
                            SELECT id FROM log_drains WHERE (next_try_at IS NULL OR next_try_at <= :now)
                              AND (lease_node IS NULL OR lease_node = :node OR lease_until < :now)""")
                    .bind("now", now).bind("node", node).mapTo(String.class).list();
            List<LogDrain> out = new java.util.ArrayList<>();
            for (String id : ids) {
                int taken = h.createUpdate("""
                                UPDATE log_drains SET lease_node = :node, lease_until = :until
                                WHERE id = :id AND (lease_node IS NULL OR lease_node = :node OR lease_until < :now)""")
                        .bind("node", node).bind("until", leaseUntil).bind("id", id).bind("now", now).execute();
                if (taken == 1) h.createQuery("SELECT * FROM log_drains WHERE id = :id").bind("id", id).map(mapper).findOne().ifPresent(out::add);
            }
            return out;
        });
    }

    /**
     * The project's log entries after {@code after} up to {@code upTo}, oldest first: of its deployments and cron runs.
     */
    List<DrainLine> logs(String projectId, long after, long upTo, int limit) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT seq, owner_id, at, level, message FROM log_entries
                        WHERE seq > :after AND seq <= :upTo AND owner_id IN (
                            SELECT id FROM deployments WHERE project_id = :p UNION ALL SELECT id FROM cron_runs WHERE project_id = :p)
                        ORDER BY seq LIMIT :limit""")
                .bind("after", after).bind("upTo", upTo).bind("p", projectId).bind("limit", limit)
                .map((rs, ctx) -> DrainLine.log(rs.getLong("seq"), rs.getString("owner_id"), rs.getTimestamp("at").toInstant(),
                        rs.getString("level"), rs.getString("message")))
                .list());
    }

    /** The project's request lines after {@code after} up to {@code upTo}, oldest first. */
    List<DrainLine> requests(String projectId, long after, long upTo, int limit) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT * FROM request_logs WHERE project_id = :p AND seq > :after AND seq <= :upTo ORDER BY seq LIMIT :limit""")
                .bind("after", after).bind("upTo", upTo).bind("p", projectId).bind("limit", limit)
                .map((rs, ctx) -> DrainLine.request(rs.getLong("seq"), rs.getString("deployment_id"), rs.getTimestamp("at").toInstant(),
                        rs.getString("method"), rs.getString("path"), rs.getInt("status"), rs.getLong("duration_us"),
                        rs.getLong("bytes"), rs.getString("client")))
                .list());
    }

    /** What a drain shipped: its cursors move on, and a failing streak ends. */
    void shipped(String id, long logCursor, long requestCursor, int sent) {
        jdbi.useHandle(h -> h.createUpdate("""
                        UPDATE log_drains SET log_cursor = :logs, request_cursor = :requests, lines_sent = lines_sent + :sent,
                               failures = 0, failing_since = NULL, last_error = NULL, next_try_at = NULL WHERE id = :id""")
                .bind("logs", logCursor).bind("requests", requestCursor).bind("sent", sent).bind("id", id).execute());
    }

    /** A drain's lines could not be shipped: tried again at {@code next}. */
    void failed(String id, String error, Instant now, Instant next) {
        String shown = error.length() > 1000 ? error.substring(0, 999) + "…" : error;
        jdbi.useHandle(h -> h.createUpdate("""
                        UPDATE log_drains SET failures = failures + 1, failing_since = COALESCE(failing_since, :now),
                               last_error = :error, next_try_at = :next WHERE id = :id""")
                .bind("now", now).bind("error", shown).bind("next", next).bind("id", id).execute());
    }
}
