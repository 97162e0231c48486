package dev.slipway.migrations;

import java.time.Instant;

public record Migration(String id, String accountId, String projectId, String deploymentId, String source, String repo,
                        String branch, String framework, String uploadId, String databaseType, String databaseAction,
                        String databaseId, MigrationStatus status, Instant createdAt, Instant startedAt,
                        Instant completedAt) {
}
