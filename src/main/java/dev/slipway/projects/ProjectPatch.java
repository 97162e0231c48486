package dev.slipway.projects;

import dev.slipway.runtime.HealthSpec;
import java.util.Optional;

/**
 * What a {@code PATCH /v1/projects/{id}} changes; a null field is left as it is, an empty one cleared.
 *
 * @param branch        the branch deployments build (never cleared)
 * @param rootDirectory the app's folder in its source; empty: the top
 * @param instanceType  the instance type label of its next deployments; empty: production's, else the tier's default
 * @param health        its own health check; empty: its slipway.toml's, else the default
 * @param replicas      how many instances of web run; empty: its slipway.toml's, else 1
 * @param name          its new name (never cleared): its addresses move with it
 */
public record ProjectPatch(String branch, Optional<String> rootDirectory, Optional<String> instanceType,
                           Optional<HealthSpec> health, Optional<Integer> replicas, String name) {
    public ProjectPatch(String branch, Optional<String> rootDirectory, Optional<String> instanceType, Optional<HealthSpec> health) {
        this(branch, rootDirectory, instanceType, health, null, null);
    }
}
