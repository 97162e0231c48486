package dev.slipway.deployments;

import dev.slipway.accounts.Tier;
import dev.slipway.core.Ids;
import dev.slipway.core.MicrosClock;
import dev.slipway.databases.AdminServers;
import dev.slipway.databases.DatabaseService;
import dev.slipway.databases.DbAddress;
import dev.slipway.databases.DbKind;
import dev.slipway.migrations.Migration;
import dev.slipway.migrations.MigrationStatus;
import dev.slipway.projects.ProjectChanges;
import dev.slipway.secrets.SecretBox;
import dev.slipway.store.Dialect;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.TestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A project's database is the platform's: its DATABASE_URL, and the network rule that lets the app reach it,
 * come from the platform's record. A deployment's {@code env_vars} that would set DATABASE_URL over it are a 400
 * naming the field; a project without a database may set its own.
 */
@EndToEnd
class DatabaseVariableTest {
    static TestServer server;
    static TestServer.Tenant tenant;

    @BeforeAll
    static void start() {
        server = TestServer.start(Dialect.H2);
        tenant = server.tenant(Tier.TEAM);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static String project() {
        var r = tenant.http().post("/v1/projects", "{\"source\":\"github\",\"repo\":\"acme/db-" + System.nanoTime() + "\"}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().at("/data/id").asText();
    }

    /** Records a connected database for the project, as a migration with a {@code database} does. */
    static void withDatabase(String projectId) {
        var jdbi = server.slipway().database().jdbi();
        DatabaseService databases = new DatabaseService(jdbi, AdminServers.of(null, null),
                SecretBox.fromBase64(server.store().secretKey()), server.slipway().stores().logs(), MicrosClock.system(),
                ProjectChanges.NONE);
        String migrationId = new Ids(MicrosClock.system()).next("mig");
        var plan = new DatabaseService.Plan(DbKind.POSTGRES, "connect", DbAddress.parse("postgres://app@db.example.com:5432/app"), "key");
        jdbi.useTransaction(h -> {
            String id = databases.record(h, tenant.account().id(), projectId, migrationId, plan);
            server.slipway().stores().migrations().insert(h, new Migration(migrationId, tenant.account().id(), projectId, null,
                    "github", "acme/x", "main", null, null, "postgres", "connect", id, MigrationStatus.PROCESSING,
                    Instant.now(), Instant.now(), null));
        });
    }

    @Test
    void aDeploymentMayNotSetTheDatabaseUrlOfAProjectThatHasADatabase() {
        String projectId = project();
        withDatabase(projectId);
        var r = tenant.http().post("/v1/deployments", "{\"project_id\":\"" + projectId
                + "\",\"env_vars\":{\"DATABASE_URL\":\"postgres://x:y@169.254.169.254:80/x\"}}");
        assertThat(r.status()).as(r.body()).isEqualTo(400);
        assertThat(r.json().at("/error/code").asText()).isEqualTo("invalid_request");
        assertThat(r.json().at("/error/details/env_vars.DATABASE_URL").asText()).contains("set by the project's database");
        assertThat(r.json().at("/error/request_id").asText()).isNotBlank();
        assertThat(r.body()).doesNotContain("169.254.169.254");
        assertThat(tenant.http().get("/v1/deployments?project_id=" + projectId).json().get("data")).isEmpty();
    }

    @Test
    void aProjectWithoutADatabaseMaySetItsOwn() {
        String projectId = project();
        var r = tenant.http().post("/v1/deployments", "{\"project_id\":\"" + projectId
                + "\",\"env_vars\":{\"DATABASE_URL\":\"postgres://u:p@db.example.com:5432/app\"}}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
    }
}
