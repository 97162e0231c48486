package dev.slipway.runtime;

import dev.slipway.build.Artifact;
import dev.slipway.net.DatabaseEndpoint;

import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What to run: a deployment's artifact with its environment.
 *
 * @param env          the app's variables (DATABASE_URL included when it has one); PORT is set by the runtime
 * @param secretValues values masked as {@code ****} wherever the app's output is logged
 * @param instanceType the limits the app runs under
 * @param database     the project's database as the platform recorded it, or null: what the app's network rules
 *                     to a database are built from (never {@code env}, whose variables its account sets)
 */
public record AppSpec(String deploymentId, String projectId, Artifact artifact, Map<String, String> env,
                      Set<String> secretValues, InstanceType instanceType, DatabaseEndpoint database) {
    public AppSpec {
        Objects.requireNonNull(instanceType, "instanceType");
        Objects.requireNonNull(deploymentId, "deploymentId");
        Objects.requireNonNull(projectId, "projectId");
        Objects.requireNonNull(artifact, "artifact");
        if (artifact.isStatic()) {
            throw new IllegalArgumentException("a static site has no process to run: route its staticRoot instead");
        }
        if (artifact.startCommand() == null || artifact.startCommand().isEmpty()) {
            throw new IllegalArgumentException("the artifact has no start command");
        }
        env = env == null ? Map.of() : Map.copyOf(env);
        secretValues = secretValues == null ? Set.of() : Set.copyOf(secretValues);
    }

    /** An app without a database of the platform's. */
    public AppSpec(String deploymentId, String projectId, Artifact artifact, Map<String, String> env,
                   Set<String> secretValues, InstanceType instanceType) {
        this(deploymentId, projectId, artifact, env, secretValues, instanceType, null);
    }
}
