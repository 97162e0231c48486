package dev.slipway.requestlogs;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;

import java.time.Instant;

/** A request the router relayed to a deployment's app, as its request log keeps it. */
public record RequestLine(@JsonIgnore long seq, @JsonIgnore String projectId, @JsonIgnore String deploymentId, Instant at,
                          String method, String path, int status, @JsonIgnore long durationMicros, long bytes, String client) {
    /** Milliseconds, to the microsecond. */
    @JsonProperty("duration_ms")
    public double durationMs() {
        return durationMicros / 1000.0;
    }
}
