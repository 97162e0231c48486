package dev.slipway.alerts;

import org.jdbi.v3.core.Jdbi;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/** Projects' own alert rules; a project without a row has {@link AlertRules#DEFAULT}. */
public final class AlertRuleStore {
    private final Jdbi jdbi;

    public AlertRuleStore(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    public AlertRules find(String projectId) {
        return jdbi.withHandle(h -> h.createQuery("SELECT * FROM alert_rules WHERE project_id = :p").bind("p", projectId)
                .map((rs, ctx) -> rules(rs)).findOne().orElse(AlertRules.DEFAULT));
    }

    /** The rules of these projects, in one read: a project missing from the answer has the defaults. */
    public Map<String, AlertRules> of(Collection<String> projectIds) {
        Map<String, AlertRules> out = new HashMap<>();
        if (projectIds.isEmpty()) return out;
        jdbi.useHandle(h -> h.createQuery("SELECT * FROM alert_rules WHERE project_id IN (<ids>)").bindList("ids", java.util.List.copyOf(projectIds))
                .map((rs, ctx) -> Map.entry(rs.getString("project_id"), rules(rs))).forEach(e -> out.put(e.getKey(), e.getValue())));
        return out;
    }

    public void put(String projectId, AlertRules rules, Instant at) {
        AlertRules.ErrorRate e = rules.errorRate();
        AlertRules.LatencyP95 l = rules.latencyP95();
        jdbi.useTransaction(h -> {
            h.createUpdate("DELETE FROM alert_rules WHERE project_id = :p").bind("p", projectId).execute();
            h.createUpdate("""
                            INSERT INTO alert_rules (project_id, error_percent, error_minutes, error_min_requests, p95_ms, p95_minutes, updated_at)
                            VALUES (:p, :ep, :em, :er, :lm, :lmin, :at)""")
                    .bind("p", projectId).bind("ep", e.abovePercent()).bind("em", e.forMinutes()).bind("er", e.minRequests())
                    .bind("lm", l == null ? null : l.aboveMs()).bind("lmin", l == null ? null : l.forMinutes()).bind("at", at).execute();
        });
    }

    private static AlertRules rules(ResultSet rs) throws SQLException {
        int p95 = rs.getInt("p95_ms");
        AlertRules.LatencyP95 latency = rs.wasNull() ? null : new AlertRules.LatencyP95(p95, rs.getInt("p95_minutes"));
        return new AlertRules(new AlertRules.ErrorRate(rs.getInt("error_percent"), rs.getInt("error_minutes"),
                rs.getInt("error_min_requests")), latency);
    }
}
