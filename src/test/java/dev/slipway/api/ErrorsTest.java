package dev.slipway.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.store.Dialect;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.ServerPerStore;
import dev.slipway.testing.TestServer;
import java.net.URI;
import java.net.http.HttpRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

@EachStore
@EndToEnd
class ErrorsTest {
    final Dialect kind = server.kind();

    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.start();
    static TestServer.Tenant tenant;

    @EachStore.Before
    static void start() {
        tenant = server.tenant(Tier.TEAM);
    }

    static JsonNode assertError(Http.Response r, int status, String code) {
        assertThat(r.status()).as(r.body()).isEqualTo(status);
        assertThat(r.header("Content-Type")).startsWith("application/json");
        JsonNode error = r.json().get("error");
        assertThat(error.get("code").asText()).isEqualTo(code);
        assertThat(error.get("message").asText()).isNotBlank();
        assertThat(error.get("request_id").asText()).isEqualTo(r.header("X-Request-Id")).startsWith("req_");
        assertThat(r.header("X-RateLimit-Limit")).isNotNull();
        assertThat(r.header("X-RateLimit-Remaining")).isNotNull();
        assertThat(r.header("X-RateLimit-Reset")).isNotNull();
        assertThat(r.body()).doesNotContain("Exception").doesNotContain("at dev.slipway").doesNotContain("<html");
        return error;
    }

    @Test
    void unknownRouteIs404() {
        assertError(tenant.http().get("/v1/no-such-thing"), 404, "not_found");
        assertError(tenant.http().get("/v1/projects/prj_x/nothing"), 404, "not_found");
    }

    @Test
    void unknownRouteOutsideV1Is404InTheSameShape() {
        var r = server.anonymous().get("/nothing-here");
        assertThat(r.status()).isEqualTo(404);
        assertThat(r.json().at("/error/code").asText()).isEqualTo("not_found");
    }

    @Test
    void wrongMethodIs405() {
        assertError(tenant.http().send("DELETE", "/v1/projects", null, null), 405, "method_not_allowed");
        assertError(tenant.http().send("PUT", "/v1/projects/prj_x", "application/json", "{}".getBytes()), 405, "method_not_allowed");
    }

    @Test
    void malformedJsonIs400() {
        assertError(tenant.http().post("/v1/projects", "{\"source\": \"github\", "), 400, "invalid_request");
        assertError(tenant.http().post("/v1/projects", "[1,2]"), 400, "invalid_request");
        assertError(tenant.http().post("/v1/projects", ""), 400, "invalid_request");
    }

    @Test
    void invalidFieldsAre400WithDetails() {
        var error = assertError(tenant.http().post("/v1/projects",
                "{\"source\":\"svn\",\"branch\":\"a..b\",\"region\":\"mars-1\",\"env_vars\":{\"1BAD\":\"x\",\"OK\":5},\"extra\":1}"),
                400, "invalid_request");
        JsonNode details = error.get("details");
        assertThat(details.has("source")).isTrue();
        assertThat(details.has("branch")).isTrue();
        assertThat(details.has("region")).isTrue();
        assertThat(details.has("env_vars.1BAD")).isTrue();
        assertThat(details.has("env_vars.OK")).isTrue();
        assertThat(details.has("extra")).isTrue();
        var missingRepo = assertError(tenant.http().post("/v1/projects", "{\"source\":\"github\"}"), 400, "invalid_request");
        assertThat(missingRepo.at("/details/repo").asText()).isEqualTo("is required");
        var badRepo = assertError(tenant.http().post("/v1/projects", "{\"source\":\"github\",\"repo\":\"../etc\"}"), 400, "invalid_request");
        assertThat(badRepo.at("/details/repo").asText()).contains("owner/repo");
    }

    /** A GET sent as raw bytes: java.net.URI refuses the malformed escapes this test sends. */
    static String[] rawGet(String target) throws java.io.IOException {
        URI base = URI.create(server.baseUrl());
        try (java.net.Socket socket = new java.net.Socket(base.getHost(), base.getPort())) {
            socket.setSoTimeout(30_000);
            socket.getOutputStream().write(("GET " + target + " HTTP/1.1\r\nHost: " + base.getHost() + "\r\nAuthorization: Bearer "
                    + tenant.key() + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return new String[]{answer.substring(0, answer.indexOf("\r\n")), answer.substring(answer.indexOf("\r\n\r\n") + 4)};
        }
    }

    @Test
    void aQueryWithMalformedPercentEncodingIs400NamingTheParameter() throws Exception {
        String[] cursor = rawGet("/v1/projects?cursor=%zz");
        assertThat(cursor[0]).isEqualTo("HTTP/1.1 400 Bad Request");
        assertThat(cursor[1]).contains("\"code\":\"invalid_request\"").contains("\"cursor\":\"is not valid percent-encoding");
        String[] limit = rawGet("/v1/deployments?status=live&limit=%%");
        assertThat(limit[0]).isEqualTo("HTTP/1.1 400 Bad Request");
        assertThat(limit[1]).contains("\"limit\":\"is not valid percent-encoding");
        // well-formed escapes are as before
        assertThat(rawGet("/v1/projects?limit=%32")[0]).isEqualTo("HTTP/1.1 200 OK");
    }

    @Test
    void wrongContentTypeIs415() {
        assertError(tenant.http().send("POST", "/v1/projects", "text/plain", "{}".getBytes()), 415, "unsupported_media_type");
        assertError(tenant.http().send("POST", "/v1/projects", null, "{}".getBytes()), 415, "unsupported_media_type");
    }

    @Test
    void bodyOverOneMebibyteIs413() {
        String big = "{\"source\":\"github\",\"repo\":\"a/b\",\"env_vars\":{\"X\":\"" + "a".repeat(1024 * 1024) + "\"}}";
        assertError(tenant.http().send("POST", "/v1/projects", "application/json", big.getBytes(StandardCharsets.UTF_8)),
                413, "payload_too_large");
        // nothing was stored by the refused request
        assertThat(tenant.http().get("/v1/projects").json().get("data").size()).isZero();
    }

    @Test
    void clientRequestIdIsEchoedAndUnsafeOnesReplaced() {
        var ok = tenant.http().send(HttpRequest.newBuilder(URI.create(server.baseUrl() + "/v1/projects"))
                .header("X-Request-Id", "ci-run-42").GET());
        assertThat(ok.header("X-Request-Id")).isEqualTo("ci-run-42");
        var unsafe = tenant.http().send(HttpRequest.newBuilder(URI.create(server.baseUrl() + "/v1/projects"))
                .header("X-Request-Id", "<script>").GET());
        assertThat(unsafe.header("X-Request-Id")).startsWith("req_");
    }

    @Test
    void unexpectedFailureIs500WithoutInternals() {
        // a server whose store has gone away: every query fails underneath the API
        try (TestServer broken = TestServer.start(kind)) {
            var t = broken.tenant(Tier.FREE);
            broken.slipway().database().dataSource().close();
            var r = t.http().get("/v1/projects");
            var error = assertError(r, 500, "internal_error");
            assertThat(error.get("message").asText()).contains(r.header("X-Request-Id"))
                    .doesNotContainIgnoringCase("sql").doesNotContainIgnoringCase("hikari");
            assertThat(broken.anonymous().get("/readyz").status()).isEqualTo(503);
            assertThat(broken.anonymous().get("/healthz").status()).isEqualTo(200);
        }
    }
}
