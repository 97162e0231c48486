package dev.slipway.deployments;

import java.time.Instant;

/**
 * A deployment as stored. {@code rollbackOf} is the target when this deployment is a rollback.
 *
 * @param image        of a prebuilt image's project: the image asked for, then the {@code <repository>@sha256:…} it
 *                     was resolved to once (what a rollback runs again); null for a build from source
 * @param target       {@link #PRODUCTION} or {@link #PREVIEW}
 * @param promotedFrom the preview whose build a promotion runs as production; null otherwise
 * @param sharesDatabase a preview that gets the project's database (production always does)
 */
public record Deployment(String id, String accountId, String projectId, String migrationId, String commitSha,
                         String commitMessage, String branch, DeploymentStatus status, String rollbackOf,
                         String rolledBackFrom, String artifactId, String envOverridesEnc, String region,
                         String instanceType, Integer buildDurationSeconds, Instant createdAt, Instant liveAt,
                         Instant finishedAt, boolean cancelRequested, String uploadId, String image, String target,
                         String promotedFrom, boolean sharesDatabase) {
    public static final String PRODUCTION = "production";
    public static final String PREVIEW = "preview";

    /** A production deployment. */
    public Deployment(String id, String accountId, String projectId, String migrationId, String commitSha,
                      String commitMessage, String branch, DeploymentStatus status, String rollbackOf,
                      String rolledBackFrom, String artifactId, String envOverridesEnc, String region,
                      String instanceType, Integer buildDurationSeconds, Instant createdAt, Instant liveAt,
                      Instant finishedAt, boolean cancelRequested, String uploadId, String image) {
        this(id, accountId, projectId, migrationId, commitSha, commitMessage, branch, status, rollbackOf, rolledBackFrom,
                artifactId, envOverridesEnc, region, instanceType, buildDurationSeconds, createdAt, liveAt, finishedAt,
                cancelRequested, uploadId, image, PRODUCTION, null, false);
    }

    /** A deployment of {@code target} that does not share a preview's database. */
    public Deployment(String id, String accountId, String projectId, String migrationId, String commitSha,
                      String commitMessage, String branch, DeploymentStatus status, String rollbackOf,
                      String rolledBackFrom, String artifactId, String envOverridesEnc, String region,
                      String instanceType, Integer buildDurationSeconds, Instant createdAt, Instant liveAt,
                      Instant finishedAt, boolean cancelRequested, String uploadId, String image, String target,
                      String promotedFrom) {
        this(id, accountId, projectId, migrationId, commitSha, commitMessage, branch, status, rollbackOf, rolledBackFrom,
                artifactId, envOverridesEnc, region, instanceType, buildDurationSeconds, createdAt, liveAt, finishedAt,
                cancelRequested, uploadId, image, target, promotedFrom, false);
    }

    /** Whether its app gets the project's database: production always, a preview only when asked. */
    public boolean getsDatabase() {
        return !preview() || sharesDatabase;
    }

    /** Served at its own address only: never production. */
    public boolean preview() {
        return PREVIEW.equals(target);
    }

    /** The deployment whose build this one runs without building: a rollback's target or a promoted preview. */
    public String reusesBuildOf() {
        return rollbackOf != null ? rollbackOf : promotedFrom;
    }

    /** A build from source. */
    public Deployment(String id, String accountId, String projectId, String migrationId, String commitSha,
                      String commitMessage, String branch, DeploymentStatus status, String rollbackOf,
                      String rolledBackFrom, String artifactId, String envOverridesEnc, String region,
                      String instanceType, Integer buildDurationSeconds, Instant createdAt, Instant liveAt,
                      Instant finishedAt, boolean cancelRequested, String uploadId) {
        this(id, accountId, projectId, migrationId, commitSha, commitMessage, branch, status, rollbackOf, rolledBackFrom,
                artifactId, envOverridesEnc, region, instanceType, buildDurationSeconds, createdAt, liveAt, finishedAt,
                cancelRequested, uploadId, null);
    }

    /** The short id in the deployment's own hostname: {@code <project>-<short id>.<apps domain>}. */
    public String shortId() {
        return id.substring(id.length() - 8);
    }
}
