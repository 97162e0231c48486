package dev.slipway.runtime;

import dev.slipway.build.Artifact;
import dev.slipway.net.DatabaseEndpoint;

import java.util.List;
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
 * @param volumes      the project's volumes, mounted in each of its processes
 * @param health       how its health is checked ({@link HealthSpec#DEFAULT} when null)
 * @param replicas     how many instances of its web process run, each in a cell of its own ({@link Replicas})
 * @param processes    its other processes as its slipway.toml declares them (type → argv), over its Procfile's
 */
public record AppSpec(String deploymentId, String projectId, Artifact artifact, Map<String, String> env,
                      Set<String> secretValues, InstanceType instanceType, DatabaseEndpoint database, List<Volume> volumes,
                      HealthSpec health, int replicas, Map<String, List<String>> processes) {
    public AppSpec {
        processes = processes == null ? Map.of() : Map.copyOf(processes);
        if (replicas < 1 || replicas > Replicas.MAX) {
            throw new IllegalArgumentException("replicas must be 1 to " + Replicas.MAX + ": " + replicas);
        }
        if (health == null) health = HealthSpec.DEFAULT;
        volumes = volumes == null ? List.of() : List.copyOf(volumes);
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

    public AppSpec(String deploymentId, String projectId, Artifact artifact, Map<String, String> env,
                   Set<String> secretValues, InstanceType instanceType, DatabaseEndpoint database, List<Volume> volumes,
                   HealthSpec health) {
        this(deploymentId, projectId, artifact, env, secretValues, instanceType, database, volumes, health, 1, null);
    }

    public AppSpec(String deploymentId, String projectId, Artifact artifact, Map<String, String> env,
                   Set<String> secretValues, InstanceType instanceType, DatabaseEndpoint database) {
        this(deploymentId, projectId, artifact, env, secretValues, instanceType, database, List.of(), null);
    }

    /** The same app with these volumes. */
    public AppSpec withVolumes(List<Volume> v) {
        return new AppSpec(deploymentId, projectId, artifact, env, secretValues, instanceType, database, v, health, replicas, processes);
    }

    /** The same app checked this way. */
    public AppSpec withHealth(HealthSpec h) {
        return new AppSpec(deploymentId, projectId, artifact, env, secretValues, instanceType, database, volumes, h, replicas, processes);
    }

    /** The same app run as {@code n} instances. */
    public AppSpec withReplicas(int n) {
        return new AppSpec(deploymentId, projectId, artifact, env, secretValues, instanceType, database, volumes, health, n, processes);
    }

    /** The same app with these declared processes. */
    public AppSpec withProcesses(Map<String, List<String>> p) {
        return new AppSpec(deploymentId, projectId, artifact, env, secretValues, instanceType, database, volumes, health, replicas, p);
    }

    /** Replica {@code index}'s own spec: keyed {@link Replicas#key}, one instance. */
    public AppSpec replica(int index) {
        return new AppSpec(Replicas.key(deploymentId, index), projectId, artifact, env, secretValues, instanceType, database,
                volumes, health, 1, null);
    }

    /** An app without a database of the platform's. */
    public AppSpec(String deploymentId, String projectId, Artifact artifact, Map<String, String> env,
                   Set<String> secretValues, InstanceType instanceType) {
        this(deploymentId, projectId, artifact, env, secretValues, instanceType, null);
    }
}
