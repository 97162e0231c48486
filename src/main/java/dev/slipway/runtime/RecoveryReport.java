package dev.slipway.runtime;

import java.util.List;

/**
 * What {@link AppRuntime#recover} did.
 *
 * @param killedOrphans processes of a previous run that were still alive and were killed
 * @param running       instances running and healthy: adopted as they ran, or started again
 * @param failing       deployment ids started again but not healthy yet (they keep restarting with backoff)
 * @param adopted       how many of {@code running} kept running through the restart and were adopted
 */
public record RecoveryReport(int killedOrphans, List<Instance> running, List<String> failing, int adopted) {
    /** A runtime whose apps do not run in the server (nothing to adopt or kill). */
    public RecoveryReport(int killedOrphans, List<Instance> running, List<String> failing) {
        this(killedOrphans, running, failing, 0);
    }
}
