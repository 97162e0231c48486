package dev.slipway.runtime;

import java.time.Instant;
import java.util.List;

/**
 * A running app: where it listens and its current process (a new pid after a crash restart).
 *
 * @param host  loopback for a local process; another runtime's address (a cluster Service's IP) otherwise
 * @param port  its first instance's port
 * @param pid   0 when the runtime has no local process (Kubernetes)
 * @param ports every instance's port on {@code host}, {@code port} first: more than one when it runs {@link Replicas}
 *              the router balances between (a runtime whose address balances by itself gives one)
 */
public record Instance(String deploymentId, String projectId, String host, int port, long pid, Instant startedAt,
                       List<Integer> ports) {
    public static final String LOOPBACK = "127.0.0.1";

    public Instance {
        ports = ports == null || ports.isEmpty() ? List.of(port) : List.copyOf(ports);
    }

    public Instance(String deploymentId, String projectId, String host, int port, long pid, Instant startedAt) {
        this(deploymentId, projectId, host, port, pid, startedAt, null);
    }

    /** A local process on a loopback port. */
    public Instance(String deploymentId, String projectId, int port, long pid, Instant startedAt) {
        this(deploymentId, projectId, LOOPBACK, port, pid, startedAt);
    }

    /** The same app reached on these ports (its replicas'). */
    public Instance withPorts(List<Integer> all) {
        return new Instance(deploymentId, projectId, host, port, pid, startedAt, all);
    }
}
