package dev.slipway.usage;

import dev.slipway.router.RequestStats;
import org.HdrHistogram.Histogram;
import org.jdbi.v3.core.Jdbi;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** {@code app_usage}: the samples and their five-minute rollups, per project and server. */
public final class UsageStore {
    private static final org.jdbi.v3.core.mapper.RowMapper<UsageSample> MAPPER = (rs, ctx) -> new UsageSample(
            rs.getString("project_id"), rs.getTimestamp("at").toInstant(), rs.getInt("step_seconds"), rs.getDouble("cpu_seconds"),
            rs.getLong("memory_bytes"), rs.getLong("memory_limit_bytes"), rs.getInt("processes"), rs.getLong("oom_kills"),
            rs.getInt("restarts"), rs.getLong("requests"), rs.getLong("errors_5xx"), rs.getLong("bytes_out"),
            decode(rs.getString("latency")));
    private final Jdbi jdbi;
    private final String node;

    public UsageStore(Jdbi jdbi, String node) {
        this.jdbi = jdbi;
        this.node = node;
    }

    public void save(List<UsageSample> samples) {
        if (samples.isEmpty()) return;
        jdbi.useTransaction(h -> {
            var batch = h.prepareBatch("""
                    INSERT INTO app_usage (project_id, node, step_seconds, at, cpu_seconds, memory_bytes, memory_limit_bytes,
                                           processes, oom_kills, restarts, requests, errors_5xx, bytes_out, latency)
                    VALUES (:p, :node, :step, :at, :cpu, :mem, :limit, :procs, :oom, :restarts, :requests, :errors, :bytes, :latency)""");
            for (UsageSample s : samples) {
                batch.bind("p", s.projectId()).bind("node", node).bind("step", s.stepSeconds()).bind("at", s.at())
                        .bind("cpu", s.cpuSeconds()).bind("mem", s.memoryBytes()).bind("limit", s.memoryLimitBytes())
                        .bind("procs", s.processes()).bind("oom", s.oomKills()).bind("restarts", s.restarts())
                        .bind("requests", s.requests()).bind("errors", s.errors5xx()).bind("bytes", s.bytesOut())
                        .bind("latency", s.latency().getTotalCount() == 0 ? null : encode(s.latency())).add();
            }
            batch.execute();
        });
    }

    /** Every server's rows of the project at this resolution with {@code from <= at < to}, oldest first. */
    public List<UsageSample> read(String projectId, int stepSeconds, Instant from, Instant to) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT * FROM app_usage WHERE project_id = :p AND step_seconds = :step AND at >= :from AND at < :to
                        ORDER BY at""")
                .bind("p", projectId).bind("step", stepSeconds).bind("from", from).bind("to", to)
                .map(MAPPER)
                .list());
    }

    /** This server's samples with {@code from <= at < to}, oldest first: what a rollup is made of. */
    List<UsageSample> own(int stepSeconds, Instant from, Instant to) {
        List<UsageSample> out = new ArrayList<>();
        jdbi.useHandle(h -> h.createQuery("""
                        SELECT * FROM app_usage WHERE node = :node AND step_seconds = :step AND at >= :from AND at < :to ORDER BY at""")
                .bind("node", node).bind("step", stepSeconds).bind("from", from).bind("to", to)
                .map(MAPPER)
                .forEach(out::add));
        return out;
    }

    /** Deletes this server's rows of the resolution older than {@code before}. */
    int deleteOlder(int stepSeconds, Instant before) {
        return jdbi.withHandle(h -> h.createUpdate("DELETE FROM app_usage WHERE node = :node AND step_seconds = :step AND at < :before")
                .bind("node", node).bind("step", stepSeconds).bind("before", before).execute());
    }

    /** Whether this server rolled up the window starting at {@code at} already. */
    boolean rolledUp(Instant at, int stepSeconds) {
        return jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM app_usage WHERE node = :node AND step_seconds = :step AND at = :at")
                .bind("node", node).bind("step", stepSeconds).bind("at", at).mapTo(Long.class).one()) > 0;
    }

    private static String encode(Histogram h) {
        return RequestStats.encode(h);
    }

    private static Histogram decode(String text) {
        return text == null ? UsageSample.emptyLatency() : RequestStats.decode(text);
    }

    /**
     * Takes or renews the lease of the usage every server reads alike, until {@code until}: true when this server holds
     * it (it held it, or the holder's ran out); a server that meets another's insert at the same moment does not.
     */
    public boolean holdShared(Instant now, Instant until) {
        return jdbi.withHandle(h -> {
            int renewed = h.createUpdate("UPDATE usage_leases SET node = :node, until = :until WHERE name = 'pods' AND (node = :node OR until < :now)")
                    .bind("node", node).bind("until", until).bind("now", now).execute();
            if (renewed == 1) return true;
            if (h.createQuery("SELECT COUNT(*) FROM usage_leases WHERE name = 'pods'").mapTo(Long.class).one() > 0) return false;
            try {
                return h.createUpdate("INSERT INTO usage_leases (name, node, until) VALUES ('pods', :node, :until)")
                        .bind("node", node).bind("until", until).execute() == 1;
            } catch (org.jdbi.v3.core.statement.UnableToExecuteStatementException taken) {
                return false;
            }
        });
    }
}
