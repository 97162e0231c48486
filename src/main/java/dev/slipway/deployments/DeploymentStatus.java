package dev.slipway.deployments;

import java.util.Locale;

public enum DeploymentStatus {
    QUEUED, BUILDING, DEPLOYING, LIVE, FAILED, ROLLED_BACK;

    public String label() { return name().toLowerCase(Locale.ROOT); }

    public boolean finished() { return this == LIVE || this == FAILED || this == ROLLED_BACK; }

    public static DeploymentStatus parse(String s) {
        for (DeploymentStatus v : values()) if (v.label().equals(s)) return v;
        throw new IllegalArgumentException("unknown deployment status " + s);
    }
}
