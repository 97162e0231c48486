package dev.slipway.projects;

import dev.slipway.api.AppUrls;

import java.time.Instant;
import java.util.List;

/**
 * The project as the API shows it: env var names only, never values; its database as
 * {@code {type, project_id (the db_ id), status}} (null: none), never its URL or credentials.
 */
public record ProjectView(String id, String name, String source, String repo, String branch, String framework,
                          String rootDirectory, String region, String domain, String url, String productionDeploymentId,
                          List<String> envVars, Database database, Instant createdAt) {
    public static ProjectView of(Project p, AppUrls urls) {
        return new ProjectView(p.id(), p.name(), p.source(), p.repo(), p.branch(), p.framework(), p.rootDirectory(), p.region(),
                p.domain(), urls.production(p.name()), p.productionDeploymentId(), p.envVarNames(),
                p.database() == null ? null : new Database(p.database().type(), p.database().id(), p.database().state()),
                p.createdAt());
    }

    public record Database(String type, String projectId, String status) {}
}
