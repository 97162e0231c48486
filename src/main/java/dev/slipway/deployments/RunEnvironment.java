package dev.slipway.deployments;

import dev.slipway.build.RegistryLogin;
import dev.slipway.databases.DatabaseService;
import dev.slipway.net.DatabaseEndpoint;
import dev.slipway.projects.ProjectStore;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What a deployment's app runs with, whether deployed, rolled back to or woken: the project's env vars and this
 * deployment's overrides, then the project's DATABASE_URL over them (a request cannot set it where the project
 * has a database, and one stored before that rule existed does not win); the values its log must mask; and the
 * database as the platform recorded it, which the app's network rules are built from.
 *
 * @param database      null when the project has no database the platform made or connected
 * @param registryLogin the project's registry login (its password among the masked values), or null: none
 */
public record RunEnvironment(Map<String, String> env, Set<String> secretValues, DatabaseEndpoint database,
                             RegistryLogin registryLogin) {
    public static RunEnvironment of(Deployment d, DeploymentService service, ProjectStore projects, DatabaseService databases) {
        // a preview runs unreleased code: it gets production's database only when its request said so
        var database = d.getsDatabase() ? databases.link(d.projectId()) : Optional.<DatabaseService.Link>empty();
        Map<String, String> env = new LinkedHashMap<>(service.environment(projects.envVars(d.projectId()), d));
        database.ifPresent(db -> env.put(DatabaseService.VARIABLE, db.url()));
        Set<String> secretValues = new HashSet<>(env.values());
        database.ifPresent(db -> secretValues.addAll(db.secrets()));
        RegistryLogin login = projects.registryLogin(d.projectId()).orElse(null);
        if (login != null) secretValues.add(login.password());
        return new RunEnvironment(env, secretValues, database.map(DatabaseService.Link::endpoint).orElse(null), login);
    }
}
