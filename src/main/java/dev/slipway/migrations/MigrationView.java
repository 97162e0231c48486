package dev.slipway.migrations;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.slipway.api.AppUrls;

import java.time.Instant;

/** A migration as the API shows it: the list form, and the single read with {@code database} and {@code logs_url}. */
public record MigrationView(String id, String projectId, String source, String repo, String branch, String framework,
                            String status, Instant createdAt, Instant completedAt) {
    public static MigrationView of(Migration m) {
        return new MigrationView(m.id(), m.projectId(), m.source(), m.repo(), m.branch(), m.framework(),
                m.status().label(), m.createdAt(), m.completedAt());
    }

    public record Database(String type, String projectId) {}

    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record Detail(String id, String projectId, String source, String repo, String branch, String framework,
                         Database database, String status, Instant createdAt, Instant completedAt, String logsUrl,
                         String deploymentId, String url) {
        public static Detail of(Migration m, String projectName, AppUrls urls) {
            return new Detail(m.id(), m.projectId(), m.source(), m.repo(), m.branch(), m.framework(),
                    m.databaseType() == null ? null : new Database(m.databaseType(), m.databaseId()),
                    m.status().label(), m.createdAt(), m.completedAt(), urls.api("/v1/migrations/" + m.id() + "/logs"),
                    m.deploymentId(), urls.production(projectName));
        }
    }

    public record Created(String id, String status, String projectId, Instant createdAt) {}
}
