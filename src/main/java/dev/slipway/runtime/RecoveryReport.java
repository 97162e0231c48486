package dev.slipway.runtime;

import java.util.List;

/**
 * What {@link AppRuntime#recover} did.
 *
 * @param killedOrphans processes of a previous run that were still alive and were killed
 * @param running       instances started again and healthy
 * @param failing       deployment ids started again but not healthy yet (they keep restarting with backoff)
 */
public record RecoveryReport(int killedOrphans, List<Instance> running, List<String> failing) {
}
