package dev.slipway.pipeline;

import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Statuses;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Apps;
import dev.slipway.testing.Await;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.Http;
import dev.slipway.testing.ServerPerStore;
import dev.slipway.testing.TestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Migrate, deploy, roll back and fail, end to end: real git server, real builds, real apps behind the router. */
@EachStore
@EndToEnd
class PipelineTest {
    private static final String SECRET = "s3cr3t-token-9f8e7d";
    private static final Duration RUN = Duration.ofSeconds(120);

    final Dialect kind = server.kind();

    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.withGit();
    static TestServer.Tenant tenant;

    @EachStore.Before
    static void start() {
        tenant = server.tenant(Tier.TEAM);
    }

    static JsonNode awaitDeployment(String id, String status) {
        return Statuses.await(tenant.http(), "deployments", id, status, RUN);
    }

    static JsonNode awaitMigration(String id, String status) {
        return Statuses.await(tenant.http(), "migrations", id, status, RUN);
    }

    static String migrate(String repo, String extraFields) {
        var r = tenant.http().post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"" + repo
                + "\",\"framework\":\"node-express\",\"env_vars\":{\"SECRET_TOKEN\":\"" + SECRET + "\"}" + extraFields + "}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().at("/data/id").asText();
    }

    static List<String> messages(JsonNode logs) {
        List<String> out = new ArrayList<>();
        logs.at("/data/logs").forEach(e -> out.add(e.get("level").asText() + " " + e.get("message").asText()));
        return out;
    }

    @Test
    void migrateDeployRollBackAndCheckWhichVersionAnswers() {
        String repo = "acme/web-" + kind.name().toLowerCase();
        server.git().createRepo(repo);
        String v1 = server.git().commit(repo, "main", NodeApp.version("v1"), "First version");

        var created = tenant.http().post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"" + repo
                + "\",\"framework\":\"node-express\",\"env_vars\":{\"SECRET_TOKEN\":\"" + SECRET + "\"}}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        JsonNode creation = created.json().get("data");
        assertThat(creation.get("status").asText()).isIn("processing", "pending");
        assertThat(created.header("Location")).isEqualTo(server.baseUrl() + "/v1/migrations/" + creation.get("id").asText());
        String migrationId = creation.get("id").asText();
        String projectId = creation.get("project_id").asText();

        JsonNode migration = awaitMigration(migrationId, "complete");
        assertThat(migration.get("completed_at").isNull()).isFalse();
        assertThat(Instant.parse(migration.get("completed_at").asText())).isAfter(Instant.parse(migration.get("created_at").asText()));
        assertThat(migration.get("logs_url").asText()).isEqualTo(server.baseUrl() + "/v1/migrations/" + migrationId + "/logs");
        assertThat(migration.get("branch").asText()).isEqualTo("main");
        JsonNode migrationLogs = tenant.http().get("/v1/migrations/" + migrationId + "/logs").json();
        assertThat(messages(migrationLogs)).anyMatch(m -> m.startsWith("success Migration complete"));

        JsonNode project = tenant.http().get("/v1/projects/" + projectId).json().get("data");
        String first = project.get("production_deployment_id").asText();
        JsonNode firstDep = awaitDeployment(first, "live");
        assertThat(firstDep.get("commit_sha").asText()).isEqualTo(v1);
        assertThat(firstDep.get("commit_message").asText()).isEqualTo("First version");
        assertThat(firstDep.get("region").asText()).isEqualTo("us-east-1");
        assertThat(firstDep.get("build_duration_seconds").isInt()).isTrue();
        assertThat(firstDep.get("live_at").isNull()).isFalse();
        assertThat(firstDep.get("logs_url").asText()).isEqualTo(server.baseUrl() + "/v1/deployments/" + first + "/logs");
        String productionUrl = project.get("url").asText();
        assertThat(Apps.get(productionUrl).body()).startsWith("app:v1 token-length:" + SECRET.length());
        assertThat(Apps.get(firstDep.get("url").asText()).body()).startsWith("app:v1");

        // a second commit, deployed with a per-deployment override
        String v2 = server.git().commit(repo, "main", NodeApp.version("v2"), "Second version");
        var triggered = tenant.http().post("/v1/deployments", "{\"project_id\":\"" + projectId + "\",\"env_vars\":{\"EXTRA\":\"override\"}}");
        assertThat(triggered.status()).as(triggered.body()).isEqualTo(201);
        assertThat(triggered.json().at("/data/status").asText()).isEqualTo("queued");
        String second = triggered.json().at("/data/id").asText();
        JsonNode secondDep = awaitDeployment(second, "live");
        assertThat(secondDep.get("commit_sha").asText()).isEqualTo(v2);
        assertThat(Apps.get(productionUrl).body()).startsWith("app:v2").contains("extra:override");
        assertThat(tenant.http().get("/v1/deployments/" + first).json().at("/data/status").asText()).isEqualTo("live");
        assertThat(tenant.http().get("/v1/projects/" + projectId).json().at("/data/production_deployment_id").asText()).isEqualTo(second);

        // roll back to the first: its code and env, no rebuild
        var rollback = tenant.http().send("POST", "/v1/deployments/" + first + "/rollback", null, null);
        assertThat(rollback.status()).as(rollback.body()).isEqualTo(201);
        JsonNode rb = rollback.json().get("data");
        assertThat(rb.get("rolled_back_from").asText()).isEqualTo(second);
        assertThat(rb.get("rolled_back_to").asText()).isEqualTo(first);
        assertThat(rb.get("status").asText()).isEqualTo("queued");
        String third = rb.get("id").asText();
        JsonNode thirdDep = awaitDeployment(third, "live");
        assertThat(thirdDep.get("commit_sha").asText()).isEqualTo(v1);
        assertThat(Apps.get(productionUrl).body()).startsWith("app:v1").contains("extra:-");
        Await.until(Duration.ofSeconds(10), "the second deployment to be rolled_back", () ->
                tenant.http().get("/v1/deployments/" + second).json().at("/data/status").asText().equals("rolled_back"));
        assertThat(messages(tenant.http().get("/v1/deployments/" + third + "/logs").json()))
                .noneMatch(m -> m.contains("Build started")).anyMatch(m -> m.contains("no rebuild"));

        // 409: the target is production already; and a rolled_back one can be rolled back to
        var again = tenant.http().send("POST", "/v1/deployments/" + third + "/rollback", null, null);
        assertThat(again.status()).isEqualTo(409);
        assertThat(again.json().at("/error/code").asText()).isEqualTo("invalid_state");
        var toRolledBack = tenant.http().send("POST", "/v1/deployments/" + second + "/rollback", null, null);
        assertThat(toRolledBack.status()).as(toRolledBack.body()).isEqualTo(201);
        awaitDeployment(toRolledBack.json().at("/data/id").asText(), "live");
        assertThat(Apps.get(productionUrl).body()).startsWith("app:v2");

        // logs: every step, levels, and the secret never in a log or a response
        List<String> firstLogs = messages(tenant.http().get("/v1/deployments/" + first + "/logs").json());
        assertThat(firstLogs).anyMatch(m -> m.startsWith("info Build started"))
                .anyMatch(m -> m.startsWith("success Deployment is live"))
                .anyMatch(m -> m.contains("listening, token ****"));
        for (String path : List.of("/v1/deployments/" + first + "/logs", "/v1/migrations/" + migrationId + "/logs",
                "/v1/deployments?project_id=" + projectId, "/v1/projects/" + projectId, "/v1/migrations/" + migrationId)) {
            assertThat(tenant.http().get(path).body()).doesNotContain(SECRET);
        }
        // filters
        JsonNode live = tenant.http().get("/v1/deployments?project_id=" + projectId + "&status=live").json();
        live.get("data").forEach(d -> assertThat(d.get("status").asText()).isEqualTo("live"));
        JsonNode rolledBack = tenant.http().get("/v1/deployments?project_id=" + projectId + "&status=rolled_back").json();
        assertThat(rolledBack.get("data").size()).isGreaterThanOrEqualTo(1);
    }

    @Test
    void missingRepositoryFailsTheMigrationWithAReason() {
        String id = migrate("acme/does-not-exist", "");
        awaitMigration(id, "failed");
        List<String> logs = messages(tenant.http().get("/v1/migrations/" + id + "/logs").json());
        assertThat(logs).anyMatch(m -> m.startsWith("error") && m.toLowerCase().contains("not found"));
    }

    @Test
    void missingBranchFailsTheMigration() {
        String repo = "acme/branchless-" + kind.name().toLowerCase();
        server.git().createRepo(repo);
        server.git().commit(repo, "main", NodeApp.version("v1"), "init");
        String id = migrate(repo, ",\"branch\":\"release\"");
        awaitMigration(id, "failed");
        assertThat(messages(tenant.http().get("/v1/migrations/" + id + "/logs").json()))
                .anyMatch(m -> m.startsWith("error") && m.contains("release"));
    }

    @Test
    void failingBuildFailsWithTheCommandsOutput() {
        String repo = "acme/broken-" + kind.name().toLowerCase();
        server.git().createRepo(repo);
        server.git().commit(repo, "main", NodeApp.failingBuild(), "broken build");
        String id = migrate(repo, "");
        awaitMigration(id, "failed");
        String projectId = tenant.http().get("/v1/migrations/" + id).json().at("/data/project_id").asText();
        JsonNode deps = tenant.http().get("/v1/deployments?project_id=" + projectId).json();
        String dep = deps.at("/data/0/id").asText();
        assertThat(deps.at("/data/0/status").asText()).isEqualTo("failed");
        List<String> logs = messages(tenant.http().get("/v1/deployments/" + dep + "/logs").json());
        assertThat(logs).anyMatch(m -> m.contains("compile error in src/app.js"))
                .anyMatch(m -> m.startsWith("error Deployment failed") && m.contains("3"));
        // a failed deployment is no rollback target
        var r = tenant.http().send("POST", "/v1/deployments/" + dep + "/rollback", null, null);
        assertThat(r.status()).isEqualTo(409);
    }

    @Test
    void appThatNeverListensFailsItsHealthCheck() {
        String repo = "acme/silent-" + kind.name().toLowerCase();
        server.git().createRepo(repo);
        server.git().commit(repo, "main", NodeApp.neverListens(), "silent");
        String id = migrate(repo, "");
        awaitMigration(id, "failed");
        List<String> logs = messages(tenant.http().get("/v1/migrations/" + id + "/logs").json());
        assertThat(logs).anyMatch(m -> m.contains("starting but never listening"))
                .anyMatch(m -> m.startsWith("error") && m.toLowerCase().contains("health"))
                .as("told early, while still waited for, and the failure says why")
                .anyMatch(m -> m.startsWith("warning The app listens on no port ") && m.contains(" after its start: it must listen on $PORT ("))
                .anyMatch(m -> m.contains("(it listened on no port at all)"));
    }

    @Test
    void idempotentReplayAndMismatch() {
        String body = "{\"source\":\"github\",\"repo\":\"acme/idem-" + kind.name().toLowerCase() + "\"}";
        HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(server.baseUrl() + "/v1/projects"))
                .header("Content-Type", "application/json").header("Idempotency-Key", "k-" + kind)
                .POST(HttpRequest.BodyPublishers.ofString(body));
        Http.Response a = tenant.http().send(req);
        Http.Response b = tenant.http().send(HttpRequest.newBuilder(URI.create(server.baseUrl() + "/v1/projects"))
                .header("Content-Type", "application/json").header("Idempotency-Key", "k-" + kind)
                .POST(HttpRequest.BodyPublishers.ofString(body)));
        assertThat(a.status()).isEqualTo(201);
        assertThat(b.status()).isEqualTo(201);
        assertThat(b.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(b.json().at("/data/id").asText()).isEqualTo(a.json().at("/data/id").asText());
        assertThat(b.header("Location")).isEqualTo(a.header("Location"));
        Http.Response c = tenant.http().send(HttpRequest.newBuilder(URI.create(server.baseUrl() + "/v1/projects"))
                .header("Content-Type", "application/json").header("Idempotency-Key", "k-" + kind)
                .POST(HttpRequest.BodyPublishers.ofString(body.replace("idem", "other"))));
        assertThat(c.status()).isEqualTo(422);
        assertThat(c.json().at("/error/code").asText()).isEqualTo("idempotency_mismatch");
        // another account may use the same key independently
        Http.Response d = server.tenant(Tier.TEAM).http().send(HttpRequest.newBuilder(URI.create(server.baseUrl() + "/v1/projects"))
                .header("Content-Type", "application/json").header("Idempotency-Key", "k-" + kind)
                .POST(HttpRequest.BodyPublishers.ofString(body.replace("idem", "idem2"))));
        assertThat(d.status()).isEqualTo(201);
        assertThat(d.header("Idempotent-Replayed")).isNull();
    }

    @Test
    void validationAndAccessOnTheNewRoutes() {
        var stranger = server.tenant(Tier.TEAM);
        var project = tenant.http().post("/v1/projects", "{\"source\":\"github\",\"repo\":\"acme/private-" + kind.name().toLowerCase() + "\"}");
        String projectId = project.json().at("/data/id").asText();
        assertThat(stranger.http().post("/v1/deployments", "{\"project_id\":\"" + projectId + "\"}").status()).isEqualTo(403);
        assertThat(stranger.http().post("/v1/deployments", "{\"project_id\":\"prj_00000000000000000000000000\"}").status()).isEqualTo(404);
        assertThat(stranger.http().get("/v1/deployments?project_id=" + projectId).status()).isEqualTo(403);
        assertThat(tenant.http().get("/v1/deployments/dep_00000000000000000000000000").status()).isEqualTo(404);
        assertThat(tenant.http().get("/v1/migrations/mig_00000000000000000000000000").status()).isEqualTo(404);
        assertThat(tenant.http().get("/v1/deployments?status=done").status()).isEqualTo(400);
        assertThat(tenant.http().get("/v1/migrations?status=done").status()).isEqualTo(400);
        assertThat(tenant.http().get("/v1/deployments/dep_x?wait=61").status()).isIn(400, 404);
        var bad = tenant.http().post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"a/b\",\"database\":{\"type\":\"postgres\",\"action\":\"connect\"}}");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.json().at("/error/details/database.url").asText()).contains("required");
        assertThat(bad.json().at("/error/details/database.service_key").asText()).contains("required");
        var sha = tenant.http().post("/v1/deployments", "{\"project_id\":\"" + projectId + "\",\"commit_sha\":\"xyz\"}");
        assertThat(sha.status()).isEqualTo(400);
        var zipWithoutUpload = tenant.http().post("/v1/migrations", "{\"source\":\"zip\"}");
        assertThat(zipWithoutUpload.json().at("/error/details/upload_id").asText()).isEqualTo("is required");
    }
}
