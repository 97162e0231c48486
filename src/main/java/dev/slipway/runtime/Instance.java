package dev.slipway.runtime;

import java.time.Instant;

/** A running app: where it listens (loopback) and its current process (a new pid after a crash restart). */
public record Instance(String deploymentId, String projectId, int port, long pid, Instant startedAt) {
}
