package dev.slipway.deployments;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

import static dev.slipway.deployments.DeploymentStatus.*;

/**
 * The one table of allowed deployment moves. A rollback skips {@code building} (it reuses an
 * artifact); a live deployment becomes {@code rolled_back} when a rollback away from it goes live,
 * and a rolled-back one can be live again when it is the target of a later rollback... through a
 * new deployment, never in place.
 */
public final class DeploymentTransitions {
    private static final Map<DeploymentStatus, Set<DeploymentStatus>> ALLOWED = new EnumMap<>(DeploymentStatus.class);

    static {
        ALLOWED.put(QUEUED, EnumSet.of(BUILDING, DEPLOYING, FAILED));
        ALLOWED.put(BUILDING, EnumSet.of(DEPLOYING, FAILED));
        ALLOWED.put(DEPLOYING, EnumSet.of(LIVE, FAILED));
        ALLOWED.put(LIVE, EnumSet.of(ROLLED_BACK));
        ALLOWED.put(FAILED, EnumSet.noneOf(DeploymentStatus.class));
        ALLOWED.put(ROLLED_BACK, EnumSet.noneOf(DeploymentStatus.class));
    }

    private DeploymentTransitions() {}

    public static boolean allowed(DeploymentStatus from, DeploymentStatus to) {
        return ALLOWED.get(from).contains(to);
    }

    /** Fails loudly: an illegal move is a bug in the pipeline, never a user error. */
    public static void check(DeploymentStatus from, DeploymentStatus to) {
        if (!allowed(from, to)) throw new IllegalStateException("illegal deployment transition " + from.label() + " → " + to.label());
    }
}
