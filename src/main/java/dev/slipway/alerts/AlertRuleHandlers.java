package dev.slipway.alerts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.slipway.api.Access;
import dev.slipway.api.Body;
import dev.slipway.api.Envelope;
import dev.slipway.api.Requests;
import dev.slipway.projects.Project;
import dev.slipway.projects.ProjectStore;
import io.javalin.http.Context;

import java.time.Clock;
import java.util.Set;

/**
 * A project's alert rules: {@code GET} and {@code PUT /v1/projects/{id}/alert-rules}. A PUT replaces them whole: a
 * missing {@code error_rate} is the default one, a missing or null {@code latency_p95} is no latency rule.
 */
public final class AlertRuleHandlers {
    static final int MAX_MINUTES = 1440;
    private static final Set<String> FIELDS = Set.of("error_rate", "latency_p95");

    private final AlertRuleStore store;
    private final ProjectStore projects;
    private final Clock clock;

    public AlertRuleHandlers(AlertRuleStore store, ProjectStore projects, Clock clock) {
        this.store = store;
        this.projects = projects;
        this.clock = clock;
    }

    public record ErrorRateView(int abovePercent, int forMinutes, int minRequests) {}

    public record LatencyView(int aboveMs, int forMinutes) {}

    public record View(ErrorRateView errorRate, LatencyView latencyP95) {
        static View of(AlertRules r) {
            var e = r.errorRate();
            var l = r.latencyP95();
            return new View(new ErrorRateView(e.abovePercent(), e.forMinutes(), e.minRequests()),
                    l == null ? null : new LatencyView(l.aboveMs(), l.forMinutes()));
        }
    }

    public void get(Context ctx) {
        ctx.json(new Envelope<>(View.of(store.find(project(ctx).id()))));
    }

    public void put(Context ctx) {
        Project p = project(ctx);
        Body body = Requests.json(ctx, Requests.MAX_JSON_BODY);
        body.only(FIELDS);
        ObjectNode error = body.object("error_rate", false);
        AlertRules.ErrorRate errorRate = AlertRules.ErrorRate.DEFAULT;
        if (error != null) {
            only(body, "error_rate", error, Set.of("above_percent", "for_minutes", "min_requests"));
            errorRate = new AlertRules.ErrorRate(number(body, "error_rate", error, "above_percent", 1, 100, null),
                    number(body, "error_rate", error, "for_minutes", 0, MAX_MINUTES, 0),
                    number(body, "error_rate", error, "min_requests", 1, 1_000_000, AlertRules.ErrorRate.DEFAULT.minRequests()));
        }
        ObjectNode latency = body.object("latency_p95", false);
        AlertRules.LatencyP95 latencyP95 = null;
        if (latency != null) {
            only(body, "latency_p95", latency, Set.of("above_ms", "for_minutes"));
            latencyP95 = new AlertRules.LatencyP95(number(body, "latency_p95", latency, "above_ms", 1, 3_600_000, null),
                    number(body, "latency_p95", latency, "for_minutes", 0, MAX_MINUTES, 0));
        }
        body.check();
        AlertRules rules = new AlertRules(errorRate, latencyP95);
        store.put(p.id(), rules, clock.instant());
        ctx.json(new Envelope<>(View.of(rules)));
    }

    private static void only(Body body, String parent, ObjectNode node, Set<String> known) {
        node.fieldNames().forEachRemaining(f -> {
            if (!known.contains(f)) body.problem(parent + "." + f, "is not a field of " + parent);
        });
    }

    /** A whole number from min to max; {@code fallback} when absent (a problem when there is none). */
    private static int number(Body body, String parent, ObjectNode node, String field, int min, int max, Integer fallback) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            if (fallback == null) body.problem(parent + "." + field, "is required");
            return fallback == null ? min : fallback;
        }
        if (!v.isIntegralNumber() || !v.canConvertToInt() || v.intValue() < min || v.intValue() > max) {
            body.problem(parent + "." + field, "must be a whole number from " + min + " to " + max);
            return min;
        }
        return v.intValue();
    }

    private Project project(Context ctx) {
        String id = ctx.pathParam("project_id");
        return Access.owned(Requests.principal(ctx), projects.find(id), Project::accountId, "Project", id);
    }
}
