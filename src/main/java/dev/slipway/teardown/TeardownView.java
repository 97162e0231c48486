package dev.slipway.teardown;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.time.Instant;

/** The answer to {@code DELETE /v1/projects/{id}}: the deletion under way. */
public record TeardownView(String id, String name, String status, @JsonProperty("delete_database") boolean deleteDatabase,
                           @JsonProperty("requested_at") Instant requestedAt) {
    static TeardownView of(TeardownStore.Marked p) {
        return new TeardownView(p.id(), p.name(), "deleting", p.deleteDatabase(), p.deletingSince());
    }
}
