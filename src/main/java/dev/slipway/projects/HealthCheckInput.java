package dev.slipway.projects;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.api.Body;
import dev.slipway.appconfig.AppConfigReader;
import dev.slipway.runtime.HealthSpec;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/** {@code health_check} of a {@code PATCH /v1/projects/{id}}: the project's own check, over its slipway.toml's. */
final class HealthCheckInput {
    static final String FIELD = "health_check";
    private static final Set<String> KEYS = Set.of("path", "status", "interval_seconds", "grace_seconds", "failures");

    private HealthCheckInput() {}

    /** The check asked for; null when the request clears it ({@code null}); problems on {@code body}. */
    static HealthSpec read(Body body) {
        JsonNode v = body.node().get(FIELD);
        if (v == null || v.isNull()) return null;
        if (!v.isObject()) {
            body.problem(FIELD, "must be an object such as {\"path\": \"/healthz\"}, or null");
            return null;
        }
        Body check = body.nested(FIELD, false);
        check.only(KEYS);
        JsonNode path = v.get("path");
        boolean pathOk = path != null && path.isTextual() && path.textValue().startsWith("/") && path.textValue().length() <= 255
                && path.textValue().chars().noneMatch(c -> c <= ' ' || c == 0x7f);
        if (!pathOk) check.problem("path", "is required: a path from / without spaces, at most 255 characters");
        int[] range = {200, 399};
        JsonNode status = v.get("status");
        if (status != null) {
            int[] asked = status.isTextual() ? AppConfigReader.statusRange(status.textValue()) : null;
            if (asked == null) check.problem("status", "must be a status or a range such as \"200-399\"");
            else range = asked;
        }
        int interval = Objects.requireNonNullElse(check.integer("interval_seconds", 1, 3600), 10);
        int grace = Objects.requireNonNullElse(check.integer("grace_seconds", 0, 3600), 0);
        int failures = Objects.requireNonNullElse(check.integer("failures", 1, 100), 3);
        return !pathOk ? null : new HealthSpec(path.textValue(), range[0], range[1], Duration.ofSeconds(interval), Duration.ofSeconds(grace), failures);
    }
}
