package dev.slipway.requestlogs;

import dev.slipway.store.NewestRows;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.mapper.RowMapper;

import java.util.List;
import java.util.Map;

/** {@code request_logs}: a line per relayed request, per deployment, its newest {@link #KEEP_LINES} kept. */
public final class RequestLogStore {
    /** As many as a deployment's log keeps. */
    public static final int KEEP_LINES = 50_000;
    private static final RowMapper<RequestLine> MAPPER = (rs, ctx) -> new RequestLine(rs.getLong("seq"),
            rs.getString("project_id"), rs.getString("deployment_id"), rs.getTimestamp("at").toInstant(), rs.getString("method"),
            rs.getString("path"), rs.getInt("status"), rs.getLong("duration_us"), rs.getLong("bytes"), rs.getString("client"));

    private final Jdbi jdbi;
    private final NewestRows newest;

    public RequestLogStore(Jdbi jdbi) {
        this(jdbi, KEEP_LINES);
    }

    RequestLogStore(Jdbi jdbi, int keepLines) {
        this.jdbi = jdbi;
        this.newest = new NewestRows(jdbi, "request_logs", "deployment_id", keepLines);
    }

    /** Which requests a read wants: a status ({@code 404}) or class ({@code 5xx}) range, and a path prefix. */
    public record Filter(int statusFrom, int statusTo, String pathPrefix) {
        public static final Filter ALL = new Filter(100, 599, "");
    }

    /** Stores the lines (seq is ignored), oldest first, then drops each deployment's lines beyond what it keeps. */
    public void save(List<RequestLine> lines) {
        if (lines.isEmpty()) return;
        jdbi.useTransaction(h -> {
            var batch = h.prepareBatch("""
                    INSERT INTO request_logs (project_id, deployment_id, at, method, path, status, duration_us, bytes, client)
                    VALUES (:p, :d, :at, :method, :path, :status, :us, :bytes, :client)""");
            for (RequestLine l : lines) {
                batch.bind("p", l.projectId()).bind("d", l.deploymentId()).bind("at", l.at()).bind("method", l.method())
                        .bind("path", l.path()).bind("status", l.status()).bind("us", l.durationMicros()).bind("bytes", l.bytes())
                        .bind("client", l.client()).add();
            }
            batch.execute();
        });
        Map<String, Long> added = new java.util.HashMap<>();
        lines.forEach(l -> added.merge(l.deploymentId(), 1L, Long::sum));
        added.forEach(newest::added);
    }

    /** The deployment's lines that match, newest first, before {@code beforeSeq} (0: from the newest). */
    public List<RequestLine> search(String deploymentId, Filter filter, long beforeSeq, int limit) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT * FROM request_logs WHERE deployment_id = :d AND (:before = 0 OR seq < :before)
                          AND status BETWEEN :from AND :to AND path LIKE :prefix ESCAPE '!'
                        ORDER BY seq DESC LIMIT :limit""")
                .bind("d", deploymentId).bind("before", beforeSeq).bind("from", filter.statusFrom()).bind("to", filter.statusTo())
                .bind("prefix", like(filter.pathPrefix())).bind("limit", limit)
                .map(MAPPER).list());
    }

    /** A LIKE pattern matching what starts with {@code prefix}, its wildcards taken literally. */
    static String like(String prefix) {
        return prefix.replace("!", "!!").replace("%", "!%").replace("_", "!_") + "%";
    }
}
