package dev.slipway.projects;

import dev.slipway.runtime.HealthSpec;

import java.time.Instant;
import java.util.List;

/**
 * A deployable app of an account: where its source lives and how it is served.
 *
 * @param database      its database (null: none), for reads; the pipeline uses {@code DatabaseService}
 * @param rootDirectory the app's folder in its source, or null for the top
 * @param domainCheck   the proof of control of {@code domain}; null when it has none
 * @param hsts          Strict-Transport-Security on its HTTPS answers
 * @param dockerfilePath the Dockerfile to build, relative to its app's folder; null: {@code Dockerfile} when there is one
 * @param run           how its apps run, as {@code PATCH} set it
 */
public record Project(String id, String accountId, String name, String source, String repo, String branch,
                      String framework, String region, String domain, String productionDeploymentId,
                      Instant createdAt, List<String> envVarNames, DatabaseRef database, String rootDirectory,
                      DomainCheck domainCheck, boolean hsts, String dockerfilePath, RunSettings run) {
    public Project {
        if (run == null) run = RunSettings.NONE;
    }

    public Project(String id, String accountId, String name, String source, String repo, String branch,
                   String framework, String region, String domain, String productionDeploymentId,
                   Instant createdAt, List<String> envVarNames, DatabaseRef database, String rootDirectory,
                   DomainCheck domainCheck, boolean hsts, String dockerfilePath) {
        this(id, accountId, name, source, repo, branch, framework, region, domain, productionDeploymentId, createdAt,
                envVarNames, database, rootDirectory, domainCheck, hsts, dockerfilePath, RunSettings.NONE);
    }

    public Project(String id, String accountId, String name, String source, String repo, String branch,
                   String framework, String region, String domain, String productionDeploymentId,
                   Instant createdAt, List<String> envVarNames) {
        this(id, accountId, name, source, repo, branch, framework, region, domain, productionDeploymentId, createdAt,
                envVarNames, null, null, null, false, null);
    }

    /** The same project with its env var names and database as read. */
    public Project with(List<String> names, DatabaseRef db) {
        return new Project(id, accountId, name, source, repo, branch, framework, region, domain, productionDeploymentId,
                createdAt, List.copyOf(names), db, rootDirectory, domainCheck, hsts, dockerfilePath, run);
    }

    /** The custom domain when the router may serve it (its control is proven), else null. */
    public String servedDomain() {
        return domain != null && domainCheck != null && domainCheck.status() == DomainStatus.VERIFIED ? domain : null;
    }

    /**
     * How the project's apps run, where the project sets it rather than its deployments.
     *
     * @param instanceType the type of its next deployments (a label of {@code InstanceType}); null: production's
     * @param health       its health check, over its slipway.toml's; null: the file's, else the default
     * @param replicas     how many instances of web its deployments run, over its slipway.toml's; null: the file's, else 1
     */
    public record RunSettings(String instanceType, HealthSpec health, Integer replicas) {
        public static final RunSettings NONE = new RunSettings(null, null, null);
    }

    /** The project's database as reads show it: {@code db_} id, type, state. */
    public record DatabaseRef(String id, String type, String state) {}

    /**
     * Where the proof of control of a custom domain stands.
     *
     * @param token     what the TXT record at {@code _slipway-challenge.<domain>} must hold (random, not a secret);
     *                  null only for a domain stored before proofs existed, until the server gives it one
     * @param checkedAt the last check, or null
     * @param reason    why the last check did not verify it, or null
     */
    public record DomainCheck(DomainStatus status, String token, Instant checkedAt, String reason) {}
}
