package dev.slipway.pipeline;

import dev.slipway.testing.Apps;
import dev.slipway.testing.EndToEnd;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Procfile's {@code release:} command: it runs once per deployment after the build and before the app starts, in
 * the app's cell with its variables (masked in the log); a failing one fails the deployment and production stays;
 * a rollback does not run it again. H2 only.
 */
@EndToEnd
class ReleaseCommandTest {
    private static final String SECRET = "release-secret-4f1d9a7c";
    private static final String REPO = "release/app";

    @RegisterExtension
    static final GitDeploys deploys = new GitDeploys();

    @Test
    void theReleaseRunsBeforeTheSwitchAFailureKeepsProductionAndARollbackSkipsIt() {
        Runs runs = deploys.runs();
        deploys.git().createRepo(REPO);
        deploys.git().commit(REPO, "main", app("v1", "console.log('migrating for v1, token ' + process.env.SECRET_TOKEN"
                + " + ', port ' + (process.env.PORT || 'none'))"), "v1");
        var created = runs.http().post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"" + REPO
                + "\",\"framework\":\"node-express\",\"env_vars\":{\"SECRET_TOKEN\":\"" + SECRET + "\"}}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        String migration = created.json().at("/data/id").asText();
        runs.awaitMigration(migration, "complete");
        String projectId = runs.projectOf(migration);
        String first = runs.firstDeployment(projectId);
        List<String> log = runs.messages("deployments", first);
        assertThat(log).contains("info Running the release command: node release.js", "info migrating for v1, token ****, port none")
                .noneMatch(m -> m.contains(SECRET));
        int released = log.indexOf("info migrating for v1, token ****, port none");
        assertThat(log.subList(released, log.size())).as("the app starts after the release")
                .anyMatch(m -> m.startsWith("info Starting "));
        assertThat(log.subList(0, released)).noneMatch(m -> m.startsWith("info Starting "));
        String url = runs.http().get("/v1/projects/" + projectId).json().at("/data/url").asText();
        assertThat(Apps.get(url).body()).startsWith("app:v1 ");

        deploys.git().commit(REPO, "main", app("v2", "console.error('migration 0002 failed: column exists'); process.exit(3)"), "v2");
        String second = runs.deploy(projectId);
        runs.awaitDeployment(second, "failed");
        assertThat(runs.messages("deployments", second))
                .anyMatch(m -> m.startsWith("error Deployment failed: the release command node release.js failed (exit code 3)")
                        && m.contains("migration 0002 failed: column exists"))
                .noneMatch(m -> m.startsWith("info Starting "));
        assertThat(Apps.get(url).body()).as("production stays").startsWith("app:v1 ");

        deploys.git().commit(REPO, "main", app("v3", "console.log('migrating for v3')"), "v3");
        String third = runs.deploy(projectId);
        runs.awaitDeployment(third, "live");
        assertThat(Apps.get(url).body()).startsWith("app:v3 ");

        var rollback = runs.http().send("POST", "/v1/deployments/" + first + "/rollback", null, null);
        assertThat(rollback.status()).as(rollback.body()).isEqualTo(201);
        String back = rollback.json().at("/data/id").asText();
        runs.awaitDeployment(back, "live");
        assertThat(Apps.get(url).body()).startsWith("app:v1 ");
        assertThat(runs.messages("deployments", back)).noneMatch(m -> m.contains("release command") || m.contains("migrating"));
    }

    private static Map<String, String> app(String version, String release) {
        Map<String, String> files = NodeApp.version(version);
        files.put("Procfile", "web: node server.js\nrelease: node release.js\n");
        files.put("release.js", release + ";\n");
        return files;
    }
}
