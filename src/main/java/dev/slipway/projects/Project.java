package dev.slipway.projects;

import java.time.Instant;
import java.util.List;

/**
 * A deployable app of an account: where its source lives and how it is served.
 *
 * @param database      its database (null: none), for reads; the pipeline uses {@code DatabaseService}
 * @param rootDirectory the app's folder in its source, or null for the top
 */
public record Project(String id, String accountId, String name, String source, String repo, String branch,
                      String framework, String region, String domain, String productionDeploymentId,
                      Instant createdAt, List<String> envVarNames, DatabaseRef database, String rootDirectory) {
    public Project(String id, String accountId, String name, String source, String repo, String branch,
                   String framework, String region, String domain, String productionDeploymentId,
                   Instant createdAt, List<String> envVarNames) {
        this(id, accountId, name, source, repo, branch, framework, region, domain, productionDeploymentId, createdAt,
                envVarNames, null, null);
    }

    /** The same project with its env var names and database as read. */
    public Project with(List<String> names, DatabaseRef db) {
        return new Project(id, accountId, name, source, repo, branch, framework, region, domain, productionDeploymentId,
                createdAt, List.copyOf(names), db, rootDirectory);
    }

    /** The project's database as reads show it: {@code db_} id, type, state. */
    public record DatabaseRef(String id, String type, String state) {}
}
