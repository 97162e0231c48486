package dev.slipway.statuses;

import java.util.Locale;

/**
 * What a git host is told about one commit: the state of its deployment, a line of text and where to look.
 *
 * @param context {@code slipway/production} or {@code slipway/preview}: a host keeps the newest status per context
 */
public record CommitStatus(State state, String context, String description, String targetUrl) {
    public enum State {
        /** Queued: not started yet. */
        PENDING,
        /** Building or deploying. */
        RUNNING,
        SUCCESS,
        FAILURE;

        public String label() { return name().toLowerCase(Locale.ROOT); }

        public static State parse(String label) {
            return valueOf(label.toUpperCase(Locale.ROOT));
        }
    }
}
