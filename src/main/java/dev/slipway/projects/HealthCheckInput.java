package dev.slipway.projects;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.api.Body;
import dev.slipway.appconfig.AppConfigReader;
import dev.slipway.runtime.HealthSpec;

import java.time.Duration;
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
        v.fieldNames().forEachRemaining(k -> { if (!KEYS.contains(k)) body.problem(FIELD + "." + k, "is not a field of a health check"); });
        JsonNode path = v.get("path");
        boolean pathOk = path != null && path.isTextual() && path.textValue().startsWith("/") && path.textValue().length() <= 255
                && path.textValue().chars().noneMatch(c -> c <= ' ' || c == 0x7f);
        if (!pathOk) body.problem(FIELD + ".path", "is required: a path from / without spaces, at most 255 characters");
        int[] range = {200, 399};
        JsonNode status = v.get("status");
        if (status != null) {
            int[] asked = status.isTextual() ? AppConfigReader.statusRange(status.textValue()) : null;
            if (asked == null) body.problem(FIELD + ".status", "must be a status or a range such as \"200-399\"");
            else range = asked;
        }
        int interval = integer(body, v, "interval_seconds", 1, 3600, 10);
        int grace = integer(body, v, "grace_seconds", 0, 3600, 0);
        int failures = integer(body, v, "failures", 1, 100, 3);
        return !pathOk ? null : new HealthSpec(path.textValue(), range[0], range[1], Duration.ofSeconds(interval), Duration.ofSeconds(grace), failures);
    }

    private static int integer(Body body, JsonNode v, String key, int min, int max, int fallback) {
        JsonNode n = v.get(key);
        if (n == null) return fallback;
        if (!n.isInt() || n.intValue() < min || n.intValue() > max) {
            body.problem(FIELD + "." + key, "must be an integer from " + min + " to " + max);
            return fallback;
        }
        return n.intValue();
    }
}
