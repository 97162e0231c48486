package dev.slipway.webhooks;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** The events an endpoint can subscribe to, and {@code *} for all of them. */
public final class EventTypes {
    public static final String ALL = "*";
    /** Sent only by {@code POST /v1/webhooks/{id}/test}, whatever the endpoint subscribed to. */
    public static final String TEST = "webhook.test";
    public static final List<String> KNOWN = List.of(
            "migration.processing", "migration.complete", "migration.failed",
            "deployment.queued", "deployment.building", "deployment.deploying", "deployment.live",
            "deployment.failed", "deployment.rolled_back", "domain.verified", "certificate.issued", "certificate.failed",
            "backup.failed", "backup.recovered", "disk.low", "disk.recovered", "store.unavailable", "store.recovered",
            "app.crash_loop", "app.crash_loop.resolved", "app.out_of_memory", "app.out_of_memory.resolved", "app.errors",
            "app.errors.resolved", "app.latency", "app.latency.resolved");
    private static final Set<String> ACCEPTED;

    static {
        ACCEPTED = new HashSet<>(KNOWN);
        ACCEPTED.add(ALL);
    }

    private EventTypes() {}

    public static boolean accepted(String type) {
        return ACCEPTED.contains(type);
    }

    public static boolean matches(List<String> subscribed, String type) {
        return subscribed.contains(ALL) || subscribed.contains(type);
    }

    public static boolean isFailure(String type) {
        return type.endsWith(".failed");
    }
}
