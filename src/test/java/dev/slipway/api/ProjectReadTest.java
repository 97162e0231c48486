package dev.slipway.api;

import dev.slipway.server.Slipway;
import dev.slipway.accounts.Tier;
import dev.slipway.core.Json;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Await;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.ServerPerStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.zip.GZIPInputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code GET /v1/projects/{id}} after a change, through the server that made it and, on PostgreSQL, through
 * a second server (which answers it from memory and learns of the change from the store's notice).
 */
@EachStore
@EndToEnd
class ProjectReadTest {
    final Dialect kind = server.kind();

    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.start();

    private static String production(Http http, String projectId) {
        var r = http.get("/v1/projects/" + projectId);
        assertThat(r.status()).isEqualTo(200);
        return r.json().path("data").path("production_deployment_id").asText(null);
    }

    private static void switchProduction(Slipway through, String projectId, String deploymentId) {
        through.database().jdbi().useTransaction(h -> through.projects().setProduction(h, projectId, deploymentId));
    }

    @Test
    void aProductionSwitchIsReadAtOnceThroughItsServerAndSoonThroughEveryOther() {
        var t = server.tenant(Tier.TEAM);
        var created = t.http().post("/v1/projects", "{\"source\":\"github\",\"repo\":\"acme/shop\"}");
        assertThat(created.status()).isEqualTo(201);
        String id = created.json().path("data").path("id").asText();
        for (int i = 0; i < 3; i++) assertThat(production(t.http(), id)).isNull();

        switchProduction(server.slipway(), id, "dep_first");
        assertThat(production(t.http(), id)).isEqualTo("dep_first");
        assumeTrue(kind == Dialect.POSTGRES, "the rest needs a second server on the same store: one server per embedded store");

        try (Slipway peer = server.startPeer()) {
            Http viaPeer = new Http("http://127.0.0.1:" + peer.apiPort(), t.key());
            Await.until(Duration.ofSeconds(5), "the peer to read the first switch", () -> "dep_first".equals(production(viaPeer, id)));
            for (int i = 0; i < 3; i++) assertThat(production(viaPeer, id)).isEqualTo("dep_first");

            switchProduction(server.slipway(), id, "dep_second");
            assertThat(production(t.http(), id)).isEqualTo("dep_second");
            // the peer's copy is at most a second old even without a notice; the notice makes it milliseconds
            Await.until(Duration.ofMillis(500), "the peer to read the second switch", () -> "dep_second".equals(production(viaPeer, id)));

            switchProduction(peer, id, "dep_third");
            assertThat(production(viaPeer, id)).isEqualTo("dep_third");
            Await.until(Duration.ofMillis(500), "the first server to read the peer's switch", () -> "dep_third".equals(production(t.http(), id)));
        }
    }

    private static Http.Response send(Http http, String method, String path, String json) {
        return http.send(method, path, json == null ? null : "application/json",
                json == null ? null : json.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** The project as the list shows it (written afresh for each list), as JSON text. */
    private static String listed(Http http, String projectId) {
        var r = http.get("/v1/projects?limit=100");
        assertThat(r.status()).isEqualTo(200);
        for (var p : r.json().path("data")) {
            if (p.path("id").asText().equals(projectId)) return p.toString();
        }
        throw new AssertionError("project " + projectId + " not listed: " + r.body());
    }

    /** The read after each kind of change shows it, the same as the list does, however often it was read before. */
    @Test
    void theReadAfterEachChangeIsTheProjectAsTheListShowsIt() {
        var t = server.tenant(Tier.TEAM);
        var created = t.http().post("/v1/projects", "{\"source\":\"github\",\"repo\":\"acme/read-" + kind + "\"}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        String id = created.json().path("data").path("id").asText();
        Runnable same = () -> {
            for (int i = 0; i < 3; i++) {
                var read = t.http().get("/v1/projects/" + id);
                assertThat(read.status()).isEqualTo(200);
                assertThat(read.header("Content-Type")).isEqualTo("application/json");
                assertThat(read.json().path("data").toString()).isEqualTo(listed(t.http(), id));
            }
        };
        same.run();
        assertThat(send(t.http(), "PATCH", "/v1/projects/" + id, "{\"branch\":\"release\"}").status()).isEqualTo(200);
        same.run();
        assertThat(t.http().get("/v1/projects/" + id).json().path("data").path("branch").asText()).isEqualTo("release");
        assertThat(send(t.http(), "PUT", "/v1/projects/" + id + "/env/API_URL", "{\"value\":\"https://example.test\"}").status())
                .isIn(200, 201);
        same.run();
        assertThat(t.http().get("/v1/projects/" + id).json().path("data").path("env_vars").toString()).contains("API_URL");
        assertThat(send(t.http(), "DELETE", "/v1/projects/" + id + "/env/API_URL", null).status()).isIn(200, 204);
        same.run();
        assertThat(t.http().get("/v1/projects/" + id).json().path("data").path("env_vars").toString()).doesNotContain("API_URL");
        switchProduction(server.slipway(), id, "dep_read");
        same.run();
        assertThat(production(t.http(), id)).isEqualTo("dep_read");
    }

    /**
     * A list larger than the buffers an answer is copied through comes whole, gzipped when the client accepts it (the
     * plain and the unzipped bytes the same), and a small answer is sent as it is.
     */
    @Test
    void aLargeListComesWholeAndGzippedWhenAskedAndASmallAnswerPlain() throws Exception {
        var t = server.tenant(Tier.TEAM);
        String id = null;
        for (int i = 0; i < 70; i++) {
            var created = t.http().post("/v1/projects", "{\"source\":\"github\",\"repo\":\"acme/service-" + i + "\"}");
            assertThat(created.status()).as(created.body()).isEqualTo(201);
            id = created.json().path("data").path("id").asText();
        }
        HttpClient client = HttpClient.newHttpClient();
        URI list = URI.create(server.baseUrl() + "/v1/projects?limit=100");
        HttpResponse<byte[]> plain = client.send(HttpRequest.newBuilder(list).header("Authorization", "Bearer " + t.key()).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(plain.statusCode()).isEqualTo(200);
        assertThat(plain.headers().firstValue("Content-Encoding")).isEmpty();
        assertThat(plain.body().length).as("larger than the 32 KiB buffers").isGreaterThan(40_000);
        assertThat(Json.MAPPER.readTree(plain.body()).path("data").size()).isEqualTo(70);

        HttpResponse<byte[]> zipped = client.send(HttpRequest.newBuilder(list).header("Authorization", "Bearer " + t.key())
                .header("Accept-Encoding", "gzip").build(), HttpResponse.BodyHandlers.ofByteArray());
        assertThat(zipped.statusCode()).isEqualTo(200);
        assertThat(zipped.headers().firstValue("Content-Encoding")).hasValue("gzip");
        assertThat(zipped.body().length).isLessThan(plain.body().length / 4);
        try (var in = new GZIPInputStream(new ByteArrayInputStream(zipped.body()))) {
            assertThat(in.readAllBytes()).isEqualTo(plain.body());
        }

        HttpResponse<byte[]> one = client.send(HttpRequest.newBuilder(URI.create(server.baseUrl() + "/v1/projects/" + id))
                .header("Authorization", "Bearer " + t.key()).header("Accept-Encoding", "gzip").build(), HttpResponse.BodyHandlers.ofByteArray());
        assertThat(one.statusCode()).isEqualTo(200);
        assertThat(one.headers().firstValue("Content-Encoding")).as("below the size worth compressing").isEmpty();
        assertThat(one.headers().firstValue("Content-Length")).hasValue(Integer.toString(one.body().length));
        assertThat(Json.MAPPER.readTree(one.body()).path("data").path("id").asText()).isEqualTo(id);
    }
}
