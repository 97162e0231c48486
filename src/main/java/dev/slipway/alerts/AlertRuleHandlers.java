package dev.slipway.alerts;

import dev.slipway.api.Access;
import dev.slipway.api.Body;
import dev.slipway.api.Envelope;
import dev.slipway.api.Requests;
import dev.slipway.projects.Project;
import dev.slipway.projects.ProjectStore;
import io.javalin.http.Context;

import java.time.Clock;
import java.util.Objects;
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
        Body error = body.nested("error_rate", false);
        AlertRules.ErrorRate errorRate = AlertRules.ErrorRate.DEFAULT;
        if (error != null) {
            error.only(Set.of("above_percent", "for_minutes", "min_requests"));
            errorRate = new AlertRules.ErrorRate(error.requiredInteger("above_percent", 1, 100),
                    Objects.requireNonNullElse(error.integer("for_minutes", 0, MAX_MINUTES), 0),
                    Objects.requireNonNullElse(error.integer("min_requests", 1, 1_000_000), AlertRules.ErrorRate.DEFAULT.minRequests()));
        }
        Body latency = body.nested("latency_p95", false);
        AlertRules.LatencyP95 latencyP95 = null;
        if (latency != null) {
            latency.only(Set.of("above_ms", "for_minutes"));
            latencyP95 = new AlertRules.LatencyP95(latency.requiredInteger("above_ms", 1, 3_600_000),
                    Objects.requireNonNullElse(latency.integer("for_minutes", 0, MAX_MINUTES), 0));
        }
        body.check();
        AlertRules rules = new AlertRules(errorRate, latencyP95);
        store.put(p.id(), rules, clock.instant());
        ctx.json(new Envelope<>(View.of(rules)));
    }

    private Project project(Context ctx) {
        String id = ctx.pathParam("project_id");
        return Access.owned(Requests.principal(ctx), projects.find(id), Project::accountId, "Project", id);
    }
}
