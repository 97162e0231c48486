package dev.slipway.envvars;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.pipeline.NodeApp;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Apps;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.Statuses;
import dev.slipway.testing.TestServer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A project's env vars one at a time: set, replaced and removed by name, listed without their values, applied at the
 * next deployment or at once with {@code ?redeploy=true}; bad names, bodies and other tenants' projects get the API's
 * errors, and a value is never answered or logged.
 */
@EachStore
@EndToEnd
class EnvVarsTest {
    private static final Duration RUN = Duration.ofMinutes(2);
    private static final String SECRET = "s3cr3t-value-of-the-env";

    private final Dialect kind;

    EnvVarsTest(Dialect kind) {
        this.kind = kind;
    }

    @Test
    void envVarsAreSetListedAndRemovedByNameAndApplyAtTheNextDeploymentOrAtOnce() {
        try (TestServer server = TestServer.start(kind)) {
            Http http = server.tenant(Tier.TEAM).http();
            JsonNode done = Statuses.migrateZip(http, NodeApp.version("env"));
            String project = done.get("project_id").asText();
            String url = done.get("url").asText();
            String env = "/v1/projects/" + project + "/env";
            assertThat(Apps.get(url).body()).isEqualTo("app:env token-length:0 extra:-");
            assertThat(http.get(env).json().get("data")).isEmpty();

            Instant before = Instant.now().minusSeconds(1);
            var created = http.send("PUT", env + "/EXTRA", "application/json", "{\"value\":\"one\"}".getBytes());
            assertThat(created.status()).as(created.body()).isEqualTo(201);
            assertThat(created.header("location")).endsWith(env + "/EXTRA");
            assertThat(created.json().at("/data/name").asText()).isEqualTo("EXTRA");
            assertThat(created.json().at("/data/deployment_id").isNull()).isTrue();
            assertThat(Instant.parse(created.json().at("/data/updated_at").asText())).isAfter(before);
            var secret = http.send("PUT", env + "/SECRET_TOKEN", "application/json", ("{\"value\":\"" + SECRET + "\"}").getBytes());
            assertThat(secret.status()).as(secret.body()).isEqualTo(201);
            assertThat(secret.body()).doesNotContain(SECRET);
            var listed = http.get(env);
            assertThat(listed.json().get("data")).extracting(n -> n.get("name").asText()).containsExactly("EXTRA", "SECRET_TOKEN");
            assertThat(listed.body()).doesNotContain(SECRET).doesNotContain("one\"");
            assertThat(http.get("/v1/projects/" + project).json().at("/data/env_vars").toString()).contains("EXTRA", "SECRET_TOKEN")
                    .doesNotContain(SECRET);
            assertThat(Apps.get(url).body()).as("the running app keeps what it started with").isEqualTo("app:env token-length:0 extra:-");

            // replaced, and applied at once by a new deployment
            var replaced = http.send("PUT", env + "/EXTRA?redeploy=true", "application/json", "{\"value\":\"two\"}".getBytes());
            assertThat(replaced.status()).as(replaced.body()).isEqualTo(200);
            String deployment = replaced.json().at("/data/deployment_id").asText();
            Statuses.await(http, "deployments", deployment, "live", RUN);
            assertThat(Apps.get(url).body()).isEqualTo("app:env token-length:" + SECRET.length() + " extra:two");
            assertThat(http.get("/v1/deployments/" + deployment + "/logs?limit=500").body()).as("the app logs its token: masked")
                    .contains("listening, token").doesNotContain(SECRET);

            // removed, at once
            var removed = http.send("DELETE", env + "/EXTRA?redeploy=true", null, null);
            assertThat(removed.status()).as(removed.body()).isEqualTo(202);
            Statuses.await(http, "deployments", removed.json().at("/data/deployment_id").asText(), "live", RUN);
            assertThat(Apps.get(url).body()).isEqualTo("app:env token-length:" + SECRET.length() + " extra:-");
            assertThat(http.send("DELETE", env + "/SECRET_TOKEN", null, null).status()).isEqualTo(204);
            assertThat(http.send("DELETE", env + "/SECRET_TOKEN", null, null).status()).as("gone already").isEqualTo(404);
            assertThat(http.get(env).json().get("data")).isEmpty();

            // an empty value is a value; the longest one fits; one more character does not
            assertThat(http.send("PUT", env + "/EMPTY", "application/json", "{\"value\":\"\"}".getBytes()).status()).isEqualTo(201);
            String longest = "x".repeat(32 * 1024);
            assertThat(http.send("PUT", env + "/LONG", "application/json", ("{\"value\":\"" + longest + "\"}").getBytes()).status())
                    .isEqualTo(201);
            var tooLong = http.send("PUT", env + "/LONG", "application/json", ("{\"value\":\"" + longest + "x\"}").getBytes());
            assertThat(tooLong.status()).isEqualTo(400);
            assertThat(tooLong.json().at("/error/details/value").asText()).contains("at most");
        }
    }

    @Test
    void badNamesBodiesAndOtherTenantsProjectsGetTheApisErrorsAndChangeNothing() {
        try (TestServer server = TestServer.start(kind)) {
            Http http = server.tenant(Tier.TEAM).http();
            String project = http.post("/v1/projects", "{\"name\":\"env-errors\",\"source\":\"zip\",\"env_vars\":{\"KEPT\":\"k\"}}")
                    .json().at("/data/id").asText();
            String env = "/v1/projects/" + project + "/env";
            List<Http.Response> bad = new ArrayList<>();
            bad.add(http.send("PUT", env + "/1BAD", "application/json", "{\"value\":\"x\"}".getBytes()));
            bad.add(http.send("PUT", env + "/GOOD", "application/json", "{\"value\":5}".getBytes()));
            bad.add(http.send("PUT", env + "/GOOD", "application/json", "{\"value\":null}".getBytes()));
            bad.add(http.send("PUT", env + "/GOOD", "application/json", "{}".getBytes()));
            bad.add(http.send("PUT", env + "/GOOD", "application/json", "{\"value\":\"x\",\"other\":1}".getBytes()));
            bad.add(http.send("PUT", env + "/GOOD", "application/json", "not json".getBytes()));
            bad.add(http.send("PUT", env + "/GOOD?redeploy=maybe", "application/json", "{\"value\":\"x\"}".getBytes()));
            for (Http.Response r : bad) {
                assertThat(r.status()).as(r.body()).isEqualTo(400);
                assertThat(r.json().at("/error/code").asText()).isEqualTo("invalid_request");
            }
            assertThat(http.send("DELETE", env + "/MISSING", null, null).status()).isEqualTo(404);

            // another tenant is refused as on the project itself, and changes nothing
            Http other = server.tenant(Tier.TEAM).http();
            assertThat(other.get("/v1/projects/" + project).status()).isEqualTo(403);
            assertThat(other.get(env).status()).isEqualTo(403);
            assertThat(other.send("PUT", env + "/KEPT", "application/json", "{\"value\":\"stolen\"}".getBytes()).status()).isEqualTo(403);
            assertThat(other.send("DELETE", env + "/KEPT", null, null).status()).isEqualTo(403);
            assertThat(server.slipway().projects().envVars(project)).containsExactly(java.util.Map.entry("KEPT", "k"));

            // at most 200 per project: the 201st is refused, a replacement is not
            for (int i = 1; i < 200; i++) {
                assertThat(http.send("PUT", env + "/V" + i, "application/json", "{\"value\":\"v\"}".getBytes()).status()).isEqualTo(201);
            }
            var over = http.send("PUT", env + "/ONE_MORE", "application/json", "{\"value\":\"v\"}".getBytes());
            assertThat(over.status()).as(over.body()).isEqualTo(400);
            assertThat(over.json().at("/error/details/name").asText()).contains("200");
            assertThat(http.send("PUT", env + "/KEPT", "application/json", "{\"value\":\"new\"}".getBytes()).status()).isEqualTo(200);
            assertThat(http.get(env).json().get("data")).hasSize(200);
        }
    }
}
