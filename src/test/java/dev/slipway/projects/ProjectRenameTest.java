package dev.slipway.projects;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.deployments.RenamedProjects;
import dev.slipway.router.RouteTable;
import dev.slipway.router.Target;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Apps;
import dev.slipway.testing.Await;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.Statuses;
import dev.slipway.testing.TestServer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code PATCH /v1/projects/{id}} with a new {@code name}: its production and deployment addresses move to it at once,
 * the old ones answer the router's 404, and a name that is taken, malformed or null is a 400 that changes nothing. A
 * server that learns of a rename only through the store's change feed moves its routes too.
 */
@EachStore
@EndToEnd
class ProjectRenameTest {
    private final Dialect kind;

    ProjectRenameTest(Dialect kind) {
        this.kind = kind;
    }

    private static final Map<String, String> APP = Map.of(
            "package.json", "{\"name\": \"rename-app\", \"version\": \"1.0.0\", \"private\": true, \"scripts\": {\"start\": \"node server.js\"}}\n",
            "server.js", """
                    require("http").createServer((req, res) => res.end("renamed app"))
                      .listen(Number(process.env.PORT), "127.0.0.1");
                    """);

    @Test
    void aRenamedProjectIsServedAtItsNewAddressesOnlyAndBadNamesChangeNothing() {
        try (TestServer server = TestServer.start(kind)) {
            Http http = server.tenant(Tier.PRO, 1_000_000).http();
            JsonNode done = Statuses.migrateZip(http, APP);
            String project = done.get("project_id").asText();
            String oldUrl = done.get("url").asText();
            JsonNode before = http.get("/v1/projects/" + project).json().get("data");
            String oldName = before.get("name").asText();
            String depUrl = http.get("/v1/deployments/" + done.get("deployment_id").asText()).json().at("/data/url").asText();
            assertThat(Apps.get(oldUrl).body()).isEqualTo("renamed app");

            String newName = "renamed-" + Long.toString(System.nanoTime(), 36);
            JsonNode after = patch(http, project, "{\"name\":\"" + newName + "\"}", 200).get("data");
            assertThat(after.get("name").asText()).isEqualTo(newName);
            String newUrl = after.get("url").asText();
            assertThat(newUrl).contains(newName).isNotEqualTo(oldUrl);
            assertThat(Apps.get(newUrl).body()).isEqualTo("renamed app");
            var old = Apps.get(oldUrl);
            assertThat(old.status()).as(old.body()).isEqualTo(404);
            // the deployment's own address moved with it
            String deploymentUrl = depUrl.replace(oldName + "-", newName + "-");
            assertThat(Apps.get(deploymentUrl).body()).isEqualTo("renamed app");
            assertThat(Apps.get(depUrl).status()).isEqualTo(404);

            // refused, and nothing changes: taken, malformed, cleared
            String taken = http.post("/v1/projects", "{\"source\":\"zip\"}").json().at("/data/name").asText();
            for (String bad : List.of("{\"name\":\"" + taken + "\"}", "{\"name\":\"Bad_Name\"}", "{\"name\":null}")) {
                assertThat(patch(http, project, bad, 400).toString()).as(bad).contains("name");
            }
            assertThat(http.get("/v1/projects/" + project).json().at("/data/name").asText()).isEqualTo(newName);
            assertThat(patch(http, project, "{\"name\":\"" + newName + "\"}", 200).at("/data/name").asText()).isEqualTo(newName);

            // a server told only by the feed: its routes follow the name the store has
            RouteTable elsewhere = new RouteTable("localhost");
            Target app = new Target.Upstream(4999);
            elsewhere.setProduction(newName, app);
            elsewhere.setDeployment(newName, "abcd1234", app);
            try (RenamedProjects follower = new RenamedProjects(server.slipway().projects(), elsewhere)) {
                String third = "third-" + Long.toString(System.nanoTime(), 36);
                patch(http, project, "{\"name\":\"" + third + "\"}", 200);
                follower.changed(project);
                // the follower moves them on its own thread: waited for whole, the old names gone too
                Await.until(Duration.ofSeconds(30), "the routes to move", () -> elsewhere.resolve(third + ".localhost").isPresent()
                        && elsewhere.resolve(third + "-abcd1234.localhost").isPresent()
                        && elsewhere.resolve(newName + ".localhost").isEmpty()
                        && elsewhere.resolve(newName + "-abcd1234.localhost").isEmpty());
                assertThat(elsewhere.resolve(third + ".localhost")).contains(app);
                assertThat(elsewhere.resolve(third + "-abcd1234.localhost")).contains(app);
                assertThat(elsewhere.resolve(newName + ".localhost")).isEmpty();
                assertThat(elsewhere.resolve(newName + "-abcd1234.localhost")).isEmpty();
            }
        }
    }

    private static JsonNode patch(Http http, String project, String json, int status) {
        var r = http.send("PATCH", "/v1/projects/" + project, "application/json", json.getBytes(StandardCharsets.UTF_8));
        assertThat(r.status()).as(json + ": " + r.body()).isEqualTo(status);
        return r.json();
    }
}
