package dev.slipway.alerts;

import dev.slipway.core.Ids;
import dev.slipway.usage.UsageSample;
import dev.slipway.webhooks.Outbox;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Turns each sample of a project's apps on this server into incidents: a crash loop (its processes crashed
 * {@link #CRASHES} times in a row), an out-of-memory kill, failing requests (its {@link AlertRules.ErrorRate}: by
 * default half of 10 or more requests answering 5xx) and slow requests (its {@link AlertRules.LatencyP95}, when it set
 * one). A project's own rule fires once its condition has held in every sample for its minutes. An incident is opened
 * once and sends {@code app.<kind>}, and sends {@code app.<kind>.resolved} once when a later sample no longer shows it,
 * to the account's webhook endpoints that subscribed (Slack and Discord ones get a line a person reads, e-mail ones a
 * mail). One open incident per project, kind and server, held by the store, so a restarted server neither repeats nor
 * forgets it.
 */
public final class Alerts {
    private static final Logger LOG = LoggerFactory.getLogger(Alerts.class);
    static final int CRASHES = 3;
    /** An out-of-memory incident resolves after this long without another kill. */
    static final Duration OOM_QUIET = Duration.ofMinutes(1);

    enum Kind {
        CRASH_LOOP("crash_loop", "crash loop"), OUT_OF_MEMORY("out_of_memory", "out of memory"), ERRORS("errors", "failing requests"),
        LATENCY("latency", "slow requests");

        final String label;
        final String words;

        Kind(String label, String words) {
            this.label = label;
            this.words = words;
        }
    }

    private final Jdbi jdbi;
    private final AlertRuleStore rules;
    private final Outbox outbox;
    private final String node;
    private final Clock clock;
    private final Ids ids;
    /** This server's open incidents, key → when opened: only this server opens or resolves them, so it reads them once. */
    private Map<String, Instant> open;
    /** Since when a rule's condition has held in every sample, by key; gone at the first sample where it does not. */
    private final Map<String, Instant> holding = new java.util.HashMap<>();

    public Alerts(Jdbi jdbi, AlertRuleStore rules, Outbox outbox, String node, Clock clock) {
        this.jdbi = jdbi;
        this.rules = rules;
        this.outbox = outbox;
        this.node = node;
        this.clock = clock;
        this.ids = new Ids(clock);
    }

    /** Opens and resolves incidents from this server's latest samples. */
    public synchronized void evaluate(List<UsageSample> samples) {
        Map<String, AlertRules> own;
        try {
            own = rules.of(samples.stream().map(UsageSample::projectId).distinct().toList());
        } catch (RuntimeException e) {
            LOG.warn("alert rules not read: {}", e.toString());
            return;
        }
        for (UsageSample s : samples) {
            AlertRules r = own.getOrDefault(s.projectId(), AlertRules.DEFAULT);
            try {
                judge(s, Kind.CRASH_LOOP, s.restarts() >= CRASHES, s.restarts() == 0,
                        "its processes crashed " + s.restarts() + " times in a row");
                boolean quiet = s.oomKills() == 0 && openSince(s.projectId(), Kind.OUT_OF_MEMORY)
                        .map(at -> !at.plus(OOM_QUIET).isAfter(clock.instant())).orElse(true);
                judge(s, Kind.OUT_OF_MEMORY, s.oomKills() > 0, quiet,
                        s.oomKills() + " process(es) killed for going over the memory limit of " + s.memoryLimitBytes() / 1048576 + " MB");
                AlertRules.ErrorRate errors = r.errorRate();
                boolean failing = errors.firing(s.requests(), s.errors5xx());
                held(s, Kind.ERRORS, failing, errors.forMinutes(), s.requests() >= errors.minRequests() && !failing,
                        s.errors5xx() + " of " + s.requests() + " requests answered 5xx" + over(errors.forMinutes()));
                AlertRules.LatencyP95 latency = r.latencyP95();
                if (latency != null) {
                    long p95Ms = s.requests() == 0 ? 0 : s.latency().getValueAtPercentile(95) / 1000;
                    boolean slow = s.requests() > 0 && p95Ms > latency.aboveMs();
                    held(s, Kind.LATENCY, slow, latency.forMinutes(), s.requests() > 0 && !slow,
                            "p95 " + p95Ms + " ms over " + latency.aboveMs() + " ms" + over(latency.forMinutes()));
                } else {
                    held(s, Kind.LATENCY, false, 0, true, null);
                }
            } catch (RuntimeException e) {
                LOG.warn("alerts of project {} not judged: {}", s.projectId(), e.toString());
            }
        }
    }

    /** As {@link #judge}, once the condition has held in every sample for {@code minutes}. */
    private void held(UsageSample s, Kind kind, boolean firing, int minutes, boolean resolved, String detail) {
        String key = key(s.projectId(), kind);
        if (!firing) {
            holding.remove(key);
            judge(s, kind, false, resolved, detail);
            return;
        }
        Instant since = holding.computeIfAbsent(key, k -> s.at());
        if (!since.plus(Duration.ofMinutes(minutes)).isAfter(s.at())) judge(s, kind, true, false, detail);
    }

    private static String over(int minutes) {
        return minutes == 0 ? "" : ", for " + minutes + " min";
    }

    private void judge(UsageSample s, Kind kind, boolean firing, boolean resolved, String detail) {
        if (firing) open(s.projectId(), kind, detail);
        else if (resolved) resolve(s.projectId(), kind);
    }

    private String key(String projectId, Kind kind) {
        return projectId + ":" + kind.label + ":" + node;
    }

    private Map<String, Instant> open() {
        if (open == null) {
            open = new java.util.HashMap<>();
            jdbi.useHandle(h -> h.createQuery("SELECT open_key, opened_at FROM alert_incidents WHERE node = :node AND open_key IS NOT NULL")
                    .bind("node", node).map((rs, ctx) -> Map.entry(rs.getString(1), rs.getTimestamp(2).toInstant()))
                    .forEach(e -> open.put(e.getKey(), e.getValue())));
        }
        return open;
    }

    private Optional<Instant> openSince(String projectId, Kind kind) {
        return Optional.ofNullable(open().get(key(projectId, kind)));
    }

    private void open(String projectId, Kind kind, String detail) {
        String key = key(projectId, kind);
        if (open().containsKey(key)) return;
        Instant now = clock.instant();
        jdbi.useTransaction(h -> {
            String id = ids.next("inc");
            h.createUpdate("""
                            INSERT INTO alert_incidents (id, project_id, kind, node, open_key, detail, opened_at)
                            VALUES (:id, :p, :kind, :node, :k, :detail, :now)""")
                    .bind("id", id).bind("p", projectId).bind("kind", kind.label).bind("node", node).bind("k", key)
                    .bind("detail", detail).bind("now", now).execute();
            send(h, projectId, "app." + kind.label, id, kind, detail, now, null);
        });
        open.put(key, now);
    }

    private void resolve(String projectId, Kind kind) {
        if (!open().containsKey(key(projectId, kind))) return;
        jdbi.useTransaction(h -> {
            var incident = h.createQuery("SELECT id, detail, opened_at FROM alert_incidents WHERE open_key = :k")
                    .bind("k", key(projectId, kind))
                    .map((rs, ctx) -> new Object[]{rs.getString(1), rs.getString(2), rs.getTimestamp(3).toInstant()}).findOne();
            if (incident.isEmpty()) return;
            Instant now = clock.instant();
            int changed = h.createUpdate("UPDATE alert_incidents SET open_key = NULL, resolved_at = :now WHERE id = :id AND open_key IS NOT NULL")
                    .bind("now", now).bind("id", (String) incident.get()[0]).execute();
            if (changed == 1) {
                send(h, projectId, "app." + kind.label + ".resolved", (String) incident.get()[0], kind, (String) incident.get()[1],
                        (Instant) incident.get()[2], now);
            }
        });
        open.remove(key(projectId, kind));
    }

    private void send(Handle h, String projectId, String type, String incident, Kind kind, String detail, Instant opened,
                      Instant resolved) {
        var project = h.createQuery("SELECT name, account_id FROM projects WHERE id = :p").bind("p", projectId)
                .map((rs, ctx) -> new String[]{rs.getString(1), rs.getString(2)}).findOne();
        if (project.isEmpty()) return;
        String name = project.get()[0];
        String summary = resolved == null
                ? "[FIRING] " + name + ": " + kind.words + " (" + detail + ")"
                : "[RESOLVED] " + name + ": " + kind.words + " is over after " + minutes(opened, resolved);
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("incident_id", incident);
        data.put("project_id", projectId);
        data.put("project_name", name);
        data.put("kind", kind.label);
        data.put("detail", detail);
        data.put("opened_at", opened);
        data.put("resolved_at", resolved);
        data.put("summary", summary);
        outbox.event(h, project.get()[1], type, data);
    }

    private static String minutes(Instant from, Instant to) {
        long s = Duration.between(from, to).toSeconds();
        return s < 120 ? s + " s" : s / 60 + " min";
    }
}
