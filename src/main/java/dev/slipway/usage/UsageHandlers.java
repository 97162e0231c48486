package dev.slipway.usage;

import dev.slipway.api.Access;
import dev.slipway.api.ApiException;
import dev.slipway.api.Envelope;
import dev.slipway.api.Requests;
import dev.slipway.projects.Project;
import dev.slipway.projects.ProjectStore;
import io.javalin.http.Context;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;

/**
 * {@code GET /v1/projects/{id}/metrics?from&to&step}: what the project's apps used and served, as series. Within the last
 * hour from 10-second samples; further back from five-minute rollups (kept 7 days), the step a multiple of five minutes.
 */
public final class UsageHandlers {
    /** The most points a series may have. */
    static final int MAX_POINTS = 2000;

    private final UsageStore store;
    private final ProjectStore projects;
    private final Clock clock;

    public UsageHandlers(UsageStore store, ProjectStore projects, Clock clock) {
        this.store = store;
        this.projects = projects;
        this.clock = clock;
    }

    /** The series of a read. */
    public record View(Instant from, Instant to, int stepSeconds, List<UsageSeries.Series> series) {}

    public void get(Context ctx) {
        String id = ctx.pathParam("project_id");
        Project p = Access.owned(Requests.principal(ctx), projects.find(id), Project::accountId, "Project", id);
        ctx.json(new Envelope<>(read(p.id(), ctx.queryParam("from"), ctx.queryParam("to"), ctx.queryParam("step"))));
    }

    View read(String projectId, String fromText, String toText, String stepText) {
        Instant now = clock.instant();
        Instant to = fromText == null && toText == null ? now : time("to", toText, now);
        Instant from = time("from", fromText, to.minus(Duration.ofHours(1)));
        if (!from.isBefore(to)) throw ApiException.invalidField("from", "must be before to");
        if (from.isBefore(now.minus(UsageSampler.ROLLUPS_KEPT).minus(UsageSampler.ROLLUP))) {
            throw ApiException.invalidField("from", "must be within the last 7 days (older rows are not kept)");
        }
        boolean samples = !from.isBefore(now.minus(UsageSampler.SAMPLES_KEPT));
        int resolution = (int) (samples ? UsageSampler.STEP : UsageSampler.ROLLUP).toSeconds();
        long span = to.getEpochSecond() - from.getEpochSecond();
        int step;
        if (stepText == null) {
            step = (int) Math.max(resolution, (span / 120 + resolution - 1) / resolution * resolution);
        } else {
            try {
                step = Integer.parseInt(stepText);
            } catch (NumberFormatException e) {
                throw ApiException.invalidField("step", "must be a whole number of seconds");
            }
            if (step < resolution || step % resolution != 0) {
                throw ApiException.invalidField("step", "must be a multiple of " + resolution + " seconds for this range"
                        + (samples ? "" : " (older than an hour: five-minute rollups)"));
            }
        }
        if (span / step > MAX_POINTS) throw ApiException.invalidField("step", "gives more than " + MAX_POINTS + " points: make it longer");
        Instant start = Instant.ofEpochSecond(from.getEpochSecond() / resolution * resolution);
        return new View(from, to, step, UsageSeries.of(store.read(projectId, resolution, start, to), start, step));
    }

    /** Epoch seconds or an RFC 3339 time. */
    private static Instant time(String field, String text, Instant fallback) {
        if (text == null || text.isBlank()) return fallback;
        try {
            return text.chars().allMatch(Character::isDigit) ? Instant.ofEpochSecond(Long.parseLong(text)) : Instant.parse(text);
        } catch (DateTimeParseException | NumberFormatException e) {
            throw ApiException.invalidField(field, "must be epoch seconds or an RFC 3339 time, e.g. 2026-11-27T10:00:00Z");
        }
    }
}
