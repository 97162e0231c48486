package dev.slipway.teardown;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.jobs.Job;
import dev.slipway.pipeline.NodeApp;
import dev.slipway.server.Slipway;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Apps;
import dev.slipway.testing.Await;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.Statuses;
import dev.slipway.testing.TestServer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code DELETE /v1/projects/{id}}: a live project's apps stop and its rows, builds, uploads and caches go, its
 * addresses answer the router's 404 and its name is free again; a deletion cut short by a crash is finished by the
 * next worker; bad requests and other tenants get the API's errors and delete nothing.
 */
@EachStore
@EndToEnd
class ProjectDeletionTest {
    private static final Duration RUN = Duration.ofMinutes(2);

    private final Dialect kind;

    ProjectDeletionTest(Dialect kind) {
        this.kind = kind;
    }

    @Test
    void aLiveProjectIsDeletedWithItsAppsBuildsUploadsAndRowsAndItsNameIsFreeAgain() {
        try (TestServer server = TestServer.start(kind)) {
            Http http = server.tenant(Tier.TEAM).http();
            JsonNode done = Statuses.migrateZip(http, NodeApp.version("one"));
            String project = done.get("project_id").asText();
            String url = done.get("url").asText();
            String name = http.get("/v1/projects/" + project).json().at("/data/name").asText();
            String upload = server.slipway().database().jdbi().withHandle(h -> h.createQuery(
                    "SELECT upload_id FROM migrations WHERE project_id = :p").bind("p", project).mapTo(String.class).one());
            assertThat(http.get("/v1/uploads/" + upload).status()).isEqualTo(200);
            assertThat(http.send("PUT", "/v1/projects/" + project + "/env/EXTRA", "application/json",
                    "{\"value\":\"x\"}".getBytes()).status()).isEqualTo(201);
            // a second deployment: the first is kept warm for a rollback, two processes run
            var second = http.post("/v1/deployments", "{\"project_id\":\"" + project + "\"}");
            assertThat(second.status()).as(second.body()).isEqualTo(201);
            JsonNode live = Statuses.await(http, "deployments", second.json().at("/data/id").asText(), "live", RUN);
            assertThat(Apps.get(url).body()).isEqualTo("app:one token-length:0 extra:x");
            assertThat(server.slipway().engine().runtime().list()).filteredOn(i -> i.projectId().equals(project)).hasSize(2);

            ProjectGone.delete(http, server.slipway(), project, "", List.of(url, live.get("url").asText()));
            assertThat(http.get("/v1/uploads/" + upload).status()).as("its upload went with it").isEqualTo(404);
            assertThat(http.get("/v1/deployments/" + live.get("id").asText()).status()).isEqualTo(404);
            var again = http.post("/v1/projects", "{\"name\":\"" + name + "\",\"source\":\"zip\"}");
            assertThat(again.status()).as("its name is free again: " + again.body()).isEqualTo(201);
        }
    }

    /** On PostgreSQL: the teardown runs on one server, and the server that runs the app stops it on the store's notice. */
    @Test
    void onASharedStoreTheServerRunningTheAppStopsItWhenAnotherDeletesItsProject() {
        if (kind != Dialect.POSTGRES) return; // an embedded store has one server
        try (TestServer server = TestServer.start(kind)) {
            TestServer.Tenant tenant = server.tenant(Tier.TEAM);
            JsonNode done = Statuses.migrateZip(tenant.http(), NodeApp.version("shared"));
            String project = done.get("project_id").asText();
            var instance = server.slipway().engine().runtime().list().stream().filter(i -> i.projectId().equals(project))
                    .findFirst().orElseThrow();
            Slipway peer = server.startPeer();
            try {
                server.slipway().workers().close(); // the teardown can only run on the peer
                Http viaPeer = new Http("http://127.0.0.1:" + peer.apiPort(), tenant.key());
                var deleted = viaPeer.send("DELETE", "/v1/projects/" + project, null, null);
                assertThat(deleted.status()).as(deleted.body()).isEqualTo(202);
                Await.until(ProjectGone.TEARDOWN, "the peer's teardown", () -> ProjectGone.count(server.slipway(), "projects", "id", project) == 0);
                Await.until(ProjectGone.TEARDOWN, "the app to stop on its own server",
                        () -> server.slipway().engine().runtime().list().stream().noneMatch(i -> i.projectId().equals(project)));
                assertThat(ProcessHandle.of(instance.pid()).filter(ProcessHandle::isAlive)).isEmpty();
                assertThat(Apps.get(done.get("url").asText()).status()).isEqualTo(404);
            } finally {
                peer.close();
            }
        }
    }

    @Test
    void aDeletionCutShortByACrashIsFinishedByTheNextWorkerAndAskingAgainAnswersTheSame() {
        try (TestServer server = TestServer.start(kind)) {
            Http http = server.tenant(Tier.TEAM).http();
            String project = http.post("/v1/projects", "{\"name\":\"cut-short\",\"source\":\"zip\",\"env_vars\":{\"A\":\"b\"}}")
                    .json().at("/data/id").asText();
            // as a server leaves it when it dies in the middle: marked, its job held under a lease nobody renews
            Instant asked = Instant.now().minusSeconds(30).truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
            server.slipway().database().jdbi().useTransaction(h -> {
                h.createUpdate("UPDATE projects SET deleting_at = :at WHERE id = :p").bind("at", asked).bind("p", project).execute();
                h.createUpdate("""
                                INSERT INTO jobs (id, kind, subject_id, project_id, state, attempts, created_at, lease_owner, lease_expires_at)
                                VALUES ('job_cut_short', :kind, :p, :p, 'running', 1, :at, 'a-dead-server/0', :until)""")
                        .bind("kind", Job.PROJECT_DELETION).bind("p", project).bind("at", asked)
                        .bind("until", Instant.now().plus(Duration.ofHours(1))).execute();
            });
            assertThat(http.get("/v1/projects/" + project).status()).isEqualTo(404);

            var again = http.send("DELETE", "/v1/projects/" + project + "?delete_database=true", null, null);
            assertThat(again.status()).as(again.body()).isEqualTo(202);
            assertThat(Instant.parse(again.json().at("/data/requested_at").asText())).as("the first request's time")
                    .isEqualTo(asked);
            assertThat(again.json().at("/data/delete_database").asBoolean()).isTrue();
            assertThat(ProjectGone.count(server.slipway(), "jobs", "subject_id", project)).as("no second job").isEqualTo(1);
            assertThat(ProjectGone.count(server.slipway(), "projects", "id", project)).isEqualTo(1);

            // the dead server's lease runs out: a worker here claims the job and finishes it
            server.slipway().database().jdbi().useHandle(h -> h.createUpdate(
                    "UPDATE jobs SET lease_expires_at = :past WHERE id = 'job_cut_short'").bind("past", Instant.now().minusSeconds(1)).execute());
            Await.until(ProjectGone.TEARDOWN, "the resumed deletion", () -> ProjectGone.count(server.slipway(), "projects", "id", project) == 0);
            assertThat(ProjectGone.count(server.slipway(), "project_env_vars", "project_id", project)).isZero();
            assertThat(http.send("DELETE", "/v1/projects/" + project, null, null).status()).isEqualTo(404);
        }
    }

    @Test
    void aBuildUnderWayIsStoppedAndTheDeletionFollowsIt() {
        try (TestServer server = TestServer.start(kind)) {
            Http http = server.tenant(Tier.TEAM).http();
            String project = http.post("/v1/projects", "{\"name\":\"slow-build\",\"source\":\"zip\",\"framework\":\"node-express\"}")
                    .json().at("/data/id").asText();
            java.util.Map<String, String> files = new java.util.LinkedHashMap<>(NodeApp.version("slow"));
            files.put("package.json", """
                    {"name": "web", "version": "1.0.0", "private": true,
                     "scripts": {"build": "node -e \\"setTimeout(() => {}, 120000)\\"", "start": "node server.js"}}
                    """);
            var upload = http.send("POST", "/v1/uploads", "application/zip", dev.slipway.testing.Zips.of(files));
            var deployment = http.post("/v1/deployments", "{\"project_id\":\"" + project + "\",\"upload_id\":\""
                    + upload.json().at("/data/id").asText() + "\"}");
            String id = deployment.json().at("/data/id").asText();
            Statuses.await(http, "deployments", id, "building", RUN);
            Await.until(RUN, "its build script to run", () -> http.get("/v1/deployments/" + id + "/logs?limit=500").body()
                    .contains("npm run build"));

            assertThat(http.send("DELETE", "/v1/projects/" + project, null, null).status()).isEqualTo(202);
            Await.until(ProjectGone.TEARDOWN, "the build to stop and the project to go",
                    () -> ProjectGone.count(server.slipway(), "projects", "id", project) == 0);
            assertThat(ProjectGone.count(server.slipway(), "deployments", "project_id", project)).isZero();
        }
    }

    @Test
    void badRequestsAndOtherTenantsGetTheApisErrorsAndDeleteNothing() {
        try (TestServer server = TestServer.start(kind)) {
            Http http = server.tenant(Tier.TEAM).http();
            String project = http.post("/v1/projects", "{\"name\":\"kept-project\",\"source\":\"zip\"}").json().at("/data/id").asText();
            Http other = server.tenant(Tier.TEAM).http();
            var stolen = other.send("DELETE", "/v1/projects/" + project, null, null);
            assertThat(stolen.status()).as(stolen.body()).isEqualTo(403);
            assertThat(stolen.json().at("/error/code").asText()).isEqualTo("forbidden");
            var bad = http.send("DELETE", "/v1/projects/" + project + "?delete_database=yes", null, null);
            assertThat(bad.status()).as(bad.body()).isEqualTo(400);
            assertThat(bad.json().at("/error/details/delete_database").asText()).contains("true or false");
            assertThat(http.send("DELETE", "/v1/projects/prj_00000000000000000000000000", null, null).status()).isEqualTo(404);
            assertThat(http.get("/v1/projects/" + project).status()).as("still there").isEqualTo(200);
            assertThat(ProjectGone.count(server.slipway(), "jobs", "subject_id", project)).isZero();
        }
    }
}
