package dev.slipway.envvars;

import java.time.Instant;

/** An env var as the API shows it: its name and when it last changed; its value never. */
public record EnvVarView(String name, Instant updatedAt) {
    /**
     * What a change answers.
     *
     * @param deploymentId the deployment that applies it at once ({@code ?redeploy=true}); null: the next deployment does
     */
    public record Changed(String name, Instant updatedAt, String deploymentId) {}
}
