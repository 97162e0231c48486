package dev.slipway.client.runs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.client.api.Api;
import dev.slipway.client.api.JsonTrees;
import dev.slipway.client.api.RunKind;

import java.time.Duration;
import java.util.Objects;

/**
 * Follows a deployment or migration to a final state with {@code ?wait=} long-polls, within the deadline.
 * A long-poll answers when the status moves away from what it was when the request arrived; a change
 * that lands between two requests (a rollback goes deploying → live in milliseconds) is only seen when
 * that wait ends, so the first long-poll after a change is short, and the rest are {@link #WAIT_SECONDS}.
 */
final class Waiter {
    static final int WAIT_SECONDS = 30;
    static final int AFTER_CHANGE_SECONDS = 2;

    private final Api api;
    private String lastStatus;

    Waiter(Api api) {
        this.api = api;
    }

    /** The last status seen (for a timeout's message), or null. */
    String lastStatus() {
        return lastStatus;
    }

    JsonNode await(RunKind kind, String id, Progress progress) {
        String what = "waiting for " + kind.noun + " " + id;
        JsonNode run = read(kind, id, 0, progress);
        boolean changed = true;
        while (!kind.finished(run)) {
            Duration left = api.deadline().remaining();
            long wait = Math.min(changed ? AFTER_CHANGE_SECONDS : WAIT_SECONDS, left.toSeconds());
            if (wait < 1) {
                api.deadline().sleep(left, what); // throws TimedOut
                continue;
            }
            String before = lastStatus;
            run = read(kind, id, wait, progress);
            changed = !Objects.equals(lastStatus, before);
        }
        return run;
    }

    private JsonNode read(RunKind kind, String id, long wait, Progress progress) {
        String path = kind.path(id) + (wait > 0 ? "?wait=" + wait : "");
        JsonNode run = api.get(path, Duration.ofSeconds(wait)).path("data");
        lastStatus = JsonTrees.text(run, "status");
        progress.status(kind.noun + " " + id + " " + lastStatus);
        return run;
    }
}
