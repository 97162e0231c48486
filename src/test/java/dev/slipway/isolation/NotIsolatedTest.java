package dev.slipway.isolation;

import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Statuses;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.pipeline.NodeApp;
import dev.slipway.store.Dialect;
import com.sun.net.httpserver.HttpServer;
import dev.slipway.testing.Apps;
import dev.slipway.testing.Await;
import dev.slipway.testing.Http;
import dev.slipway.testing.TestServer;
import java.io.IOException;
import java.util.LinkedHashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With {@code --isolation=none} the server says so: in {@code /readyz}, and as the first line of every
 * deployment log (a migration's first deployment, a later one, a rollback). Under the sandbox it does not.
 * Even then the router never forwards to a port the platform's app does not hold.
 */
@EndToEnd
class NotIsolatedTest {
    static TestServer plain;
    static TestServer sandboxed;

    @BeforeAll
    static void start() {
        plain = TestServer.start(Dialect.H2, c -> c.isolation(IsolationMode.NONE));
        sandboxed = TestServer.start(Dialect.H2, c -> c.isolation(IsolationMode.SANDBOX));
    }

    @AfterAll
    static void stop() {
        plain.close();
        sandboxed.close();
    }

    @Test
    void readyzSaysAppsAreNotIsolated() {
        JsonNode ready = plain.anonymous().get("/readyz").json();
        assertThat(ready.get("isolation").asText()).isEqualTo("none");
        assertThat(ready.get("warning").asText()).contains("apps are not isolated");
        JsonNode safe = sandboxed.anonymous().get("/readyz").json();
        assertThat(safe.get("isolation").asText()).isEqualTo("sandbox");
        assertThat(safe.has("warning")).isFalse();
    }

    @Test
    void everyDeploymentLogStartsWithTheWarning() throws Exception {
        Http http = plain.tenant(Tier.FREE).http();
        String migration = http.post("/v1/migrations", "{\"source\":\"zip\",\"framework\":\"node-express\",\"upload_id\":\""
                + upload(http, "v1") + "\"}").json().at("/data/id").asText();
        String project = await(http, "/v1/migrations/" + migration, "complete").get("project_id").asText();
        String first = await(http, "/v1/migrations/" + migration, "complete").get("deployment_id").asText();
        assertThat(firstLine(http, first)).startsWith("WARNING WARNING: apps are not isolated on this server");

        String second = http.post("/v1/deployments", "{\"project_id\":\"" + project + "\",\"upload_id\":\"" + upload(http, "v2") + "\"}")
                .json().at("/data/id").asText();
        await(http, "/v1/deployments/" + second, "live");
        assertThat(firstLine(http, second)).startsWith("WARNING WARNING: apps are not isolated");

        String rollback = http.send("POST", "/v1/deployments/" + first + "/rollback", null, null).json().at("/data/id").asText();
        await(http, "/v1/deployments/" + rollback, "live");
        assertThat(firstLine(http, rollback)).startsWith("WARNING WARNING: apps are not isolated");

        // the sandboxed server's logs start with the deployment itself
        Http safe = sandboxed.tenant(Tier.FREE).http();
        String safeMigration = safe.post("/v1/migrations", "{\"source\":\"zip\",\"framework\":\"node-express\",\"upload_id\":\""
                + upload(safe, "s1") + "\"}").json().at("/data/id").asText();
        String safeFirst = await(safe, "/v1/migrations/" + safeMigration, "complete").get("deployment_id").asText();
        assertThat(firstLine(safe, safeFirst)).startsWith("INFO Deployment queued");
    }

    /**
     * The port takeover without a sandbox: another tenant SIGKILLs an app and binds its port before the
     * restart. The router sends nothing to the squatter: the address answers 503 while the app restarts, and the
     * app again once it runs on a new port.
     */
    @Test
    void aSquatterOnACrashedAppsPortIsNeverServed() throws Exception {
        Http http = plain.tenant(Tier.FREE).http();
        String migration = http.post("/v1/migrations", "{\"source\":\"zip\",\"framework\":\"node-express\",\"upload_id\":\""
                + upload(http, "sq") + "\"}").json().at("/data/id").asText();
        JsonNode done = await(http, "/v1/migrations/" + migration, "complete");
        String url = done.get("url").asText();
        var runtime = plain.slipway().engine().runtime();
        var before = runtime.get(done.get("deployment_id").asText()).orElseThrow();
        assertThat(Apps.get(url).body()).startsWith("app:sq");

        ProcessHandle.of(before.pid()).orElseThrow().destroyForcibly();
        HttpServer squatter = Await.value(Duration.ofSeconds(5), "the killed app's port to be bindable", () -> {
            try {
                return HttpServer.create(new InetSocketAddress(before.port()), 0);
            } catch (IOException stillTaken) {
                return null;
            }
        });
        squatter.createContext("/", exchange -> {
            byte[] body = "squatter".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        squatter.start();
        try {
            Set<String> seen = new LinkedHashSet<>();
            Await.until(Duration.ofSeconds(30), "the app to answer again", () -> {
                var r = Apps.get(url);
                seen.add(r.status() + " " + r.body().lines().findFirst().orElse(""));
                return r.body().startsWith("app:sq");
            });
            assertThat(seen).noneMatch(s -> s.contains("squatter"));
            assertThat(seen).anyMatch(s -> s.startsWith("503 ")); // while it restarted
            assertThat(runtime.get(before.deploymentId()).orElseThrow().port()).isNotEqualTo(before.port());
        } finally {
            squatter.stop(0);
        }
    }

    private static String firstLine(Http http, String deploymentId) {
        JsonNode first = http.get("/v1/deployments/" + deploymentId + "/logs").json().at("/data/logs/0");
        return first.get("level").asText().toUpperCase() + " " + first.get("message").asText();
    }

    private static JsonNode await(Http http, String path, String status) {
        String[] parts = path.split("/");
        return Statuses.await(http, parts[2], parts[3], status, Duration.ofMinutes(2));
    }

    private static String upload(Http http, String version) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(bytes)) {
            for (var file : NodeApp.version(version).entrySet()) {
                zip.putNextEntry(new ZipEntry(file.getKey()));
                zip.write(file.getValue().getBytes(StandardCharsets.UTF_8));
            }
        }
        var r = http.send("POST", "/v1/uploads", "application/zip", bytes.toByteArray());
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().at("/data/id").asText();
    }
}
