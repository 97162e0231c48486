package dev.slipway.runtime;

import java.time.Instant;

/**
 * A row of {@code runtime_instances}: what should run on a node, and its last known process.
 *
 * @param processStartMs when the kernel started {@code pid} (epoch ms); null in rows written before it was kept
 */
public record StoredInstance(AppSpec spec, DesiredState desired, int port, Long pid, Long pgid, Instant startedAt,
                      Instant stopAfter, Long processStartMs) {
    public enum DesiredState { RUNNING, STOPPED }

    public String deploymentId() {
        return spec.deploymentId();
    }
}
