package dev.slipway.migrations;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.slipway.api.AppUrls;
import dev.slipway.projects.ProjectInput;

import java.time.Instant;

/**
 * A migration as the API shows it: the list form, and the single read with {@code database} and {@code logs_url}.
 * A prebuilt image's reference is its {@code image} (its {@code repo} is null).
 */
public record MigrationView(String id, String projectId, String source, String repo, String image, String branch,
                            String framework, String status, Instant createdAt, Instant completedAt) {
    public static MigrationView of(Migration m) {
        return new MigrationView(m.id(), m.projectId(), m.source(), repoOf(m), imageOf(m), m.branch(), m.framework(),
                m.status().label(), m.createdAt(), m.completedAt());
    }

    private static String repoOf(Migration m) {
        return ProjectInput.IMAGE.equals(m.source()) ? null : m.repo();
    }

    private static String imageOf(Migration m) {
        return ProjectInput.IMAGE.equals(m.source()) ? m.repo() : null;
    }

    public record Database(String type, String projectId) {}

    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record Detail(String id, String projectId, String source, String repo, String image, String branch, String framework,
                         Database database, String status, Instant createdAt, Instant completedAt, String logsUrl,
                         String deploymentId, String url) {
        public static Detail of(Migration m, String projectName, AppUrls urls) {
            return new Detail(m.id(), m.projectId(), m.source(), repoOf(m), imageOf(m), m.branch(), m.framework(),
                    m.databaseType() == null ? null : new Database(m.databaseType(), m.databaseId()),
                    m.status().label(), m.createdAt(), m.completedAt(), urls.api("/v1/migrations/" + m.id() + "/logs"),
                    m.deploymentId(), urls.production(projectName));
        }
    }

    public record Created(String id, String status, String projectId, Instant createdAt) {}
}
