package dev.slipway.deployments;

import dev.slipway.store.StateMachine;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

public enum DeploymentStatus {
    QUEUED, BUILDING, DEPLOYING, LIVE, FAILED, ROLLED_BACK;

    /**
     * The one table of allowed deployment moves. A rollback skips {@code building} (it reuses an
     * artifact); a live deployment becomes {@code rolled_back} when a rollback away from it goes live,
     * and a rolled-back one can be live again when it is the target of a later rollback... through a
     * new deployment, never in place.
     */
    public static final StateMachine<DeploymentStatus> MACHINE = StateMachine
            .builder(DeploymentStatus.class, "deployment", DeploymentStatus::label)
            .from(QUEUED, BUILDING, DEPLOYING, FAILED)
            .from(BUILDING, DEPLOYING, FAILED)
            .from(DEPLOYING, LIVE, FAILED)
            .from(LIVE, ROLLED_BACK)
            .from(FAILED)
            .from(ROLLED_BACK)
            .build();

    public String label() { return name().toLowerCase(Locale.ROOT); }

    public boolean finished() { return this == LIVE || this == FAILED || this == ROLLED_BACK; }

    /** Not built yet: a cancel can still stop it, and its upload is still needed. */
    public static Set<DeploymentStatus> cancellable() { return EnumSet.of(QUEUED, BUILDING); }

    /** Being built or deployed: a build of theirs may be recorded before the deployment names it. */
    public static Set<DeploymentStatus> inFlight() { return EnumSet.of(QUEUED, BUILDING, DEPLOYING); }

    /** Live, or a rollback's way back: their builds are kept, and a rollback to them runs one. */
    public static Set<DeploymentStatus> keepsArtifact() { return EnumSet.of(LIVE, ROLLED_BACK); }

    public static DeploymentStatus parse(String s) {
        for (DeploymentStatus v : values()) if (v.label().equals(s)) return v;
        throw new IllegalArgumentException("unknown deployment status " + s);
    }
}
