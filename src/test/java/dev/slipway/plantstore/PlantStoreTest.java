package dev.slipway.plantstore;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.ServerPerStore;
import dev.slipway.testing.TestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

@EachStore
@EndToEnd
class PlantStoreTest {
    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.start();
    static TestServer.Tenant tenant;

    @EachStore.Before
    static void start() {
        tenant = server.tenant(Tier.FREE);
    }

    static void assertFlatError(Http.Response r, int status, String messagePart) {
        assertThat(r.status()).as(r.body()).isEqualTo(status);
        JsonNode body = r.json();
        assertThat(body.get("error").isInt()).isTrue();
        assertThat(body.get("error").asInt()).isEqualTo(status);
        assertThat(body.get("message").asText()).contains(messagePart);
        assertThat(body.size()).isEqualTo(2);
    }

    @Test
    void createsAPlantAndAnswersIt() {
        var r = tenant.http().post("/sandbox/plants", "{\"id\": 10, \"name\": \"Monstera\", \"tag\": \"tropical\"}");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json().get("name").asText()).isEqualTo("Monstera");
        assertThat(r.json().get("tag").asText()).isEqualTo("tropical");
        var noTag = tenant.http().post("/sandbox/plants", "{\"id\": 9223372036854775807, \"name\": \"Fern\"}");
        assertThat(noTag.status()).isEqualTo(200);
        assertThat(noTag.json().has("tag")).isFalse();
        assertThat(noTag.json().has("id")).isFalse();
    }

    @Test
    void everyBadBodyIsAFlat400() {
        Http h = tenant.http();
        assertFlatError(h.post("/sandbox/plants", "{\"name\": \"x\"}"), 400, "id is required");
        assertFlatError(h.post("/sandbox/plants", "{\"id\": 1}"), 400, "name is required");
        assertFlatError(h.post("/sandbox/plants", "{\"id\": \"1\", \"name\": \"x\"}"), 400, "integer");
        assertFlatError(h.post("/sandbox/plants", "{\"id\": 1.5, \"name\": \"x\"}"), 400, "integer");
        assertFlatError(h.post("/sandbox/plants", "{\"id\": 9223372036854775808, \"name\": \"x\"}"), 400, "int64");
        assertFlatError(h.post("/sandbox/plants", "{\"id\": 2, \"name\": 5}"), 400, "name must be a string");
        assertFlatError(h.post("/sandbox/plants", "{\"id\": 3, \"name\": \"x\", \"tag\": 1}"), 400, "tag must be a string");
        assertFlatError(h.post("/sandbox/plants", "{\"id\": 4, "), 400, "not valid JSON");
        assertFlatError(h.post("/sandbox/plants", "[1]"), 400, "JSON object");
        assertFlatError(h.send("POST", "/sandbox/plants", "text/plain", "{}".getBytes()), 400, "application/json");
        assertThat(h.post("/sandbox/plants", "{\"id\": 77, \"name\": \"first\"}").status()).isEqualTo(200);
        assertFlatError(h.post("/sandbox/plants", "{\"id\": 77, \"name\": \"again\"}"), 400, "already exists");
        // ids are per account
        assertThat(server.tenant(Tier.FREE).http().post("/sandbox/plants", "{\"id\": 77, \"name\": \"mine\"}").status()).isEqualTo(200);
    }

    @Test
    void bearerAuthIsRequired() {
        assertFlatError(server.anonymous().post("/sandbox/plants", "{\"id\": 1, \"name\": \"x\"}"), 401, "bearer");
        assertFlatError(server.anonymous().withKey("sk_" + "B".repeat(40)).post("/sandbox/plants", "{\"id\": 1, \"name\": \"x\"}"), 401, "bearer");
    }

    @Test
    void documentsAreOpenApi31AndServedWithoutAKey() {
        JsonNode sandbox = server.anonymous().get("/sandbox/openapi.json").json();
        assertThat(sandbox.get("openapi").asText()).isEqualTo("3.1.0");
        assertThat(sandbox.at("/info/version").asText()).isEqualTo("1.0.0");
        assertThat(sandbox.at("/security/0").has("bearer")).isTrue();
        assertThat(sandbox.at("/components/securitySchemes/bearer/scheme").asText()).isEqualTo("bearer");
        assertThat(sandbox.at("/servers/0/url").asText()).isEqualTo(server.baseUrl() + "/sandbox");
        var v1 = server.anonymous().get("/v1/openapi.json");
        assertThat(v1.status()).isEqualTo(200);
        assertThat(v1.header("X-RateLimit-Limit")).isEqualTo("30");
        assertThat(v1.json().get("openapi").asText()).isEqualTo("3.1.0");
        assertThat(v1.json().at("/servers/0/url").asText()).isEqualTo(server.baseUrl() + "/v1");
        var page = server.anonymous().get("/docs");
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.header("Content-Type")).startsWith("text/html");
        assertThat(page.body()).contains("Slipway API reference", "/deployments/{deployment_id}/rollback", "/plants")
                .doesNotContain("<script");
        // the descriptions' Markdown is rendered: code spans, not backticks
        assertThat(page.body()).contains("<code>Accept: text/event-stream</code>").doesNotContain("`Accept: text/event-stream`");
    }
}
