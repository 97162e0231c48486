package dev.slipway.runtime;

import java.time.Instant;
import java.util.Map;

/**
 * What a runtime offers when it keeps the retirement schedule itself, not only in {@code runtime_instances}
 * (the Kubernetes runtime: on the Deployment, where any server finds it), reached through
 * {@link AppRuntime#retirementSchedule}. Without it, the schedule is the instance rows' (the local runtime).
 */
public interface RetirementSchedule {

    /** When the deployment is due to stop, or null once it is no longer retiring. */
    void retiringUntil(String deploymentId, Instant stopAt);

    /** The schedule {@link #retiringUntil} recorded, of deployments still running: read again after a restart. */
    Map<String, Instant> retirements();
}
