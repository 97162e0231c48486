package dev.slipway.runtime;

import java.time.Instant;

/**
 * A running app: where it listens and its current process (a new pid after a crash restart).
 *
 * @param host loopback for a local process; another runtime's address (a cluster Service's IP) otherwise
 * @param pid  0 when the runtime has no local process (Kubernetes)
 */
public record Instance(String deploymentId, String projectId, String host, int port, long pid, Instant startedAt) {
    public static final String LOOPBACK = "127.0.0.1";

    /** A local process on a loopback port. */
    public Instance(String deploymentId, String projectId, int port, long pid, Instant startedAt) {
        this(deploymentId, projectId, LOOPBACK, port, pid, startedAt);
    }
}
