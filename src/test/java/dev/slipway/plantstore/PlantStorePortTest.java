package dev.slipway.plantstore;

import dev.slipway.accounts.Tier;
import dev.slipway.store.Dialect;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.TestServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** With a sandbox port the plant store has its own listener, and the API listener no longer serves it. */
@EndToEnd
class PlantStorePortTest {
    @Test
    void theSandboxMovesToItsOwnPort() {
        try (TestServer server = TestServer.start(Dialect.H2, c -> c.sandboxPort(0))) {
            int port = server.slipway().sandboxPort();
            assertThat(port).isNotEqualTo(server.slipway().apiPort());
            var tenant = server.tenant(Tier.FREE);
            Http sandbox = new Http("http://127.0.0.1:" + port, tenant.key());
            var created = sandbox.post("/sandbox/plants", "{\"id\": 5, \"name\": \"Aloe\"}");
            assertThat(created.status()).isEqualTo(200);
            assertThat(created.json().get("name").asText()).isEqualTo("Aloe");
            PlantStoreTest.assertFlatError(new Http("http://127.0.0.1:" + port, null)
                    .post("/sandbox/plants", "{\"id\": 6, \"name\": \"x\"}"), 401, "bearer");
            var doc = sandbox.get("/sandbox/openapi.json").json();
            assertThat(doc.at("/servers/0/url").asText()).isEqualTo("http://127.0.0.1:" + port + "/sandbox");
            // not on the API listener any more, and the API is not on the sandbox's (raw requests: these
            // exchanges are outside both documents on purpose)
            assertThat(raw("POST", server.slipway().apiPort(), "/sandbox/plants", tenant.key())).isEqualTo(404);
            assertThat(raw("GET", port, "/v1/projects", tenant.key())).isEqualTo(404);
        }
    }

    private static int raw(String method, int port, String path, String key) {
        try {
            var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
                    .method(method, method.equals("GET") ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofString("{\"id\": 7, \"name\": \"x\"}"))
                    .build();
            return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
