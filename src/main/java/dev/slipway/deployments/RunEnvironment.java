package dev.slipway.deployments;

import dev.slipway.databases.DatabaseService;
import dev.slipway.projects.ProjectStore;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * What a deployment's app runs with, whether deployed, rolled back to or woken: the project's
 * DATABASE_URL, then its env vars and this deployment's overrides; and the values its log must mask.
 */
public record RunEnvironment(Map<String, String> env, Set<String> secretValues) {
    public static RunEnvironment of(Deployment d, DeploymentService service, ProjectStore projects, DatabaseService databases) {
        var database = databases.link(d.projectId());
        Map<String, String> env = new LinkedHashMap<>();
        database.ifPresent(db -> env.put("DATABASE_URL", db.url()));
        env.putAll(service.environment(projects.envVars(d.projectId()), d));
        Set<String> secretValues = new HashSet<>(env.values());
        database.ifPresent(db -> secretValues.addAll(db.secrets()));
        return new RunEnvironment(env, secretValues);
    }
}
