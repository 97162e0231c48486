package dev.slipway.deployments;

import java.time.Instant;

/** A deployment as stored. {@code rollbackOf} is the target when this deployment is a rollback. */
public record Deployment(String id, String accountId, String projectId, String migrationId, String commitSha,
                         String commitMessage, String branch, DeploymentStatus status, String rollbackOf,
                         String rolledBackFrom, String artifactId, String envOverridesEnc, String region,
                         String instanceType, Integer buildDurationSeconds, Instant createdAt, Instant liveAt,
                         Instant finishedAt, boolean cancelRequested, String uploadId) {

    /** The short id in the deployment's own hostname: {@code <project>-<short id>.<apps domain>}. */
    public String shortId() {
        return id.substring(id.length() - 8);
    }
}
