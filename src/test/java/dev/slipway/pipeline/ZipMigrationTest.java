package dev.slipway.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.store.Database;
import dev.slipway.testing.Apps;
import dev.slipway.testing.Await;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.ServerPerStore;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import static org.assertj.core.api.Assertions.assertThat;

/** A zip source: POST /v1/uploads, then a migration and deployments of uploads; uploads are the account's own. */
@EachStore
@EndToEnd
class ZipMigrationTest {
    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.start();
    static Runs runs;
    static Runs stranger;

    @EachStore.Before
    static void start() {
        runs = new Runs(server.tenant(Tier.TEAM).http());
        stranger = new Runs(server.tenant(Tier.TEAM).http());
    }

    /** The app's files under one top-level folder, as a code host's "download zip" has them. */
    static byte[] zip(String version) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(bytes)) {
            zip.putNextEntry(new ZipEntry("web-main/"));
            zip.closeEntry();
            for (Map.Entry<String, String> file : NodeApp.version(version).entrySet()) {
                zip.putNextEntry(new ZipEntry("web-main/" + file.getKey()));
                zip.write(file.getValue().getBytes(StandardCharsets.UTF_8));
                zip.closeEntry();
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return bytes.toByteArray();
    }

    static String upload(Http http, byte[] zip) {
        var r = http.send("POST", "/v1/uploads", "application/zip", zip);
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        assertThat(r.json().at("/data/id").asText()).startsWith("upl_");
        assertThat(r.json().at("/data/size_bytes").asLong()).isEqualTo(zip.length);
        return r.json().at("/data/id").asText();
    }

    static String migrateZip(Runs who, String uploadId) {
        var r = who.http().post("/v1/migrations", "{\"source\":\"zip\",\"upload_id\":\"" + uploadId + "\",\"framework\":\"node-express\"}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().at("/data/id").asText();
    }

    @Test
    void zipMigrationGoesLiveThenZipDeploymentsAndRollback() {
        String first = upload(runs.http(), zip("z1"));
        String migration = migrateZip(runs, first);
        JsonNode done = runs.awaitMigration(migration, "complete");
        assertThat(done.get("source").asText()).isEqualTo("zip");
        String projectId = done.get("project_id").asText();
        String productionUrl = runs.http().get("/v1/projects/" + projectId).json().at("/data/url").asText();
        assertThat(Apps.get(productionUrl).body()).startsWith("app:z1");
        String firstDeployment = runs.firstDeployment(projectId);
        assertThat(runs.messages("migrations", migration)).anyMatch(m -> m.contains("Extracting upload " + first));

        // a later upload deployed to the same project; then production rolled back to the first zip
        String second = upload(runs.http(), zip("z2"));
        var deployed = runs.http().post("/v1/deployments", "{\"project_id\":\"" + projectId + "\",\"upload_id\":\"" + second + "\"}");
        assertThat(deployed.status()).as(deployed.body()).isEqualTo(201);
        runs.awaitDeployment(deployed.json().at("/data/id").asText(), "live");
        assertThat(Apps.get(productionUrl).body()).startsWith("app:z2");
        var rollback = runs.http().send("POST", "/v1/deployments/" + firstDeployment + "/rollback", null, null);
        assertThat(rollback.status()).as(rollback.body()).isEqualTo(201);
        runs.awaitDeployment(rollback.json().at("/data/id").asText(), "live");
        Await.until(Duration.ofSeconds(10), "the first zip to serve again",
                () -> Apps.get(productionUrl).body().startsWith("app:z1"));

        // a zip project takes no commit_sha; a git project takes no upload_id
        assertThat(runs.http().post("/v1/deployments", "{\"project_id\":\"" + projectId + "\",\"commit_sha\":\"abcdef1\"}")
                .status()).isEqualTo(400);
    }

    /**
     * A warm rollback switches production's route as soon as its job is claimed; when its run
     * then fails (here: the project's database was removed meanwhile), production goes back to what it was.
     */
    @Test
    void aWarmRollbackThatFailsPutsProductionBack() {
        String projectId = runs.awaitMigration(migrateZip(runs, upload(runs.http(), zip("w1"))), "complete")
                .get("project_id").asText();
        String productionUrl = runs.http().get("/v1/projects/" + projectId).json().at("/data/url").asText();
        String firstDeployment = runs.firstDeployment(projectId);
        var deployed = runs.http().post("/v1/deployments", "{\"project_id\":\"" + projectId + "\",\"upload_id\":\""
                + upload(runs.http(), zip("w2")) + "\"}");
        runs.awaitDeployment(deployed.json().at("/data/id").asText(), "live");
        assertThat(Apps.get(productionUrl).body()).startsWith("app:w2");

        try (Database db = Database.open(server.store().jdbcUrl(), 2)) {
            db.jdbi().useHandle(h -> h.createUpdate("""
                            INSERT INTO databases (id, account_id, project_id, type, action, host, port, db_name, username,
                                                   state, created_at, updated_at)
                            SELECT 'db_gone' || SUBSTRING(id, 5), account_id, id, 'postgres', 'create', '127.0.0.1', 5432,
                                   'gone', 'gone', 'dropped', :at, :at FROM projects WHERE id = :p""")
                    .bind("p", projectId).bind("at", Instant.now()).execute());
        }
        var rollback = runs.http().send("POST", "/v1/deployments/" + firstDeployment + "/rollback", null, null);
        assertThat(rollback.status()).as(rollback.body()).isEqualTo(201);
        String rollbackId = rollback.json().at("/data/id").asText();
        runs.awaitDeployment(rollbackId, "failed");
        assertThat(runs.messages("deployments", rollbackId)).anyMatch(m -> m.contains("database"));
        for (int i = 0; i < 5; i++) assertThat(Apps.get(productionUrl).body()).startsWith("app:w2");
        assertThat(runs.http().get("/v1/projects/" + projectId).json().at("/data/production_deployment_id").asText())
                .isEqualTo(deployed.json().at("/data/id").asText());
    }

    @Test
    void anotherAccountsUploadIsForbidden() {
        String mine = upload(runs.http(), zip("mine"));
        // migrating it from another account: 403, and nothing is created
        var r = stranger.http().post("/v1/migrations", "{\"source\":\"zip\",\"upload_id\":\"" + mine + "\"}");
        assertThat(r.status()).as(r.body()).isEqualTo(403);
        assertThat(r.json().at("/error/code").asText()).isEqualTo("forbidden");
        assertThat(stranger.http().get("/v1/migrations").json().get("data").size()).isZero();
        assertThat(stranger.http().get("/v1/uploads/" + mine).status()).isEqualTo(403);
        // an upload that exists nowhere: 404
        assertThat(stranger.http().post("/v1/migrations",
                "{\"source\":\"zip\",\"upload_id\":\"upl_00000000000000000000000000\"}").status()).isEqualTo(404);

        // deploying it to the stranger's own zip project: 403 as well, and no deployment is queued
        String theirs = upload(stranger.http(), zip("theirs"));
        String migration = migrateZip(stranger, theirs);
        String projectId = stranger.awaitMigration(migration, "complete").get("project_id").asText();
        var deploy = stranger.http().post("/v1/deployments", "{\"project_id\":\"" + projectId + "\",\"upload_id\":\"" + mine + "\"}");
        assertThat(deploy.status()).as(deploy.body()).isEqualTo(403);
        assertThat(deploy.json().at("/error/code").asText()).isEqualTo("forbidden");
        var missing = stranger.http().post("/v1/deployments", "{\"project_id\":\"" + projectId
                + "\",\"upload_id\":\"upl_00000000000000000000000000\"}");
        assertThat(missing.status()).as(missing.body()).isEqualTo(404);
        assertThat(stranger.http().get("/v1/deployments?project_id=" + projectId).json().get("data").size()).isEqualTo(1);
        assertThat(Apps.get(stranger.http().get("/v1/projects/" + projectId).json().at("/data/url").asText()).body())
                .startsWith("app:theirs");
    }
}
