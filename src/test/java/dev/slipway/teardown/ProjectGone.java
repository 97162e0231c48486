package dev.slipway.teardown;

import dev.slipway.build.Artifact;
import dev.slipway.runtime.Instance;
import dev.slipway.server.Slipway;
import dev.slipway.testing.Apps;
import dev.slipway.testing.Await;
import dev.slipway.testing.Http;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Deletes a project through the API and proves that nothing of it is left: rows, processes, files, addresses. */
public final class ProjectGone {
    /** How long a teardown may take: its apps' stop grace, then files and rows. */
    static final Duration TEARDOWN = Duration.ofMinutes(1);
    /** Every table that names a project by {@code project_id}. */
    private static final List<String> TABLES = List.of("cron_runs", "deployments", "migrations", "artifacts", "runtime_instances",
            "project_env_vars", "databases", "project_registry_logins", "project_git", "commit_statuses");

    private ProjectGone() {}

    /**
     * {@code DELETE /v1/projects/{id}<query>}, then waits for the teardown and checks what is left.
     *
     * @param urls the project's addresses (production, deployments, previews): each answers the router's 404 at once
     */
    public static void delete(Http http, Slipway server, String projectId, String query, List<String> urls) {
        List<Artifact> builds = server.stores().artifacts().listForProject(projectId);
        List<Instance> instances = server.engine().runtime().list().stream().filter(i -> i.projectId().equals(projectId)).toList();
        List<String> owners = server.database().jdbi().withHandle(h -> h.createQuery(
                        "SELECT id FROM deployments WHERE project_id = :p UNION SELECT id FROM migrations WHERE project_id = :p"
                                + " UNION SELECT id FROM cron_runs WHERE project_id = :p")
                .bind("p", projectId).mapTo(String.class).list());

        var deleted = http.send("DELETE", "/v1/projects/" + projectId + query, null, null);
        assertThat(deleted.status()).as(deleted.body()).isEqualTo(202);
        assertThat(deleted.json().at("/data/id").asText()).isEqualTo(projectId);
        assertThat(deleted.json().at("/data/status").asText()).isEqualTo("deleting");
        assertThat(http.get("/v1/projects/" + projectId).status()).as("gone for the API at once").isEqualTo(404);
        assertThat(http.get("/v1/projects?limit=100").body()).doesNotContain(projectId);
        for (String url : urls) assertThat(Apps.get(url).status()).as(url + " answers the router's 404 at once").isEqualTo(404);

        Await.until(TEARDOWN, "project " + projectId + " to be torn down", () -> count(server, "projects", "id", projectId) == 0);
        for (String table : TABLES) assertThat(count(server, table, "project_id", projectId)).as(table).isZero();
        for (String owner : owners) assertThat(count(server, "log_entries", "owner_id", owner)).as("log of " + owner).isZero();
        assertThat(server.engine().runtime().list()).noneMatch(i -> i.projectId().equals(projectId));
        for (Instance i : instances) {
            assertThat(ProcessHandle.of(i.pid()).filter(ProcessHandle::isAlive)).as("process of " + i.deploymentId()).isEmpty();
        }
        assertThat(builds).allMatch(a -> !Files.exists(a.root()), "no build directory is left");
        Path cache = server.config().build().cacheDir(projectId);
        assertThat(cache).doesNotExist();
        for (String url : urls) assertThat(Apps.get(url).status()).as(url).isEqualTo(404);
        assertThat(http.send("DELETE", "/v1/projects/" + projectId, null, null).status()).as("gone: not found").isEqualTo(404);
    }

    static int count(Slipway server, String table, String column, String value) {
        return server.database().jdbi().withHandle(h -> h.createQuery("SELECT COUNT(*) FROM " + table + " WHERE " + column + " = :v")
                .bind("v", value).mapTo(Integer.class).one());
    }
}
