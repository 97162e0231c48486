package dev.slipway.source;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.ServerPerStore;
import dev.slipway.testing.Zips;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

@EachStore
@EndToEnd
class UploadsTest {
    private static final int LIMIT = 64 * 1024;

    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.start(c -> c.uploadLimit(LIMIT));

    private static Http.Response upload(Http http, byte[] body) {
        return http.send("POST", "/v1/uploads", "application/zip", body);
    }

    private static void assertError(Http.Response r, int status, String code, String message) {
        assertThat(r.status()).as(r.body()).isEqualTo(status);
        assertThat(r.json().at("/error/code").asText()).isEqualTo(code);
        assertThat(r.json().at("/error/message").asText()).contains(message);
        assertThat(r.json().at("/error/request_id").asText()).isEqualTo(r.header("X-Request-Id"));
    }

    private static Path uploadsDir() {
        return server.slipway().config().dataDir().resolve("uploads");
    }

    /** Refused uploads leave no partial file behind. */
    private static void assertNoIncomingFiles() throws Exception {
        if (!Files.exists(uploadsDir())) return;
        try (Stream<Path> files = Files.list(uploadsDir())) {
            assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".part"));
        }
    }

    @Test
    void storesAZipAndAnswers201() throws Exception {
        var t = server.tenant(Tier.TEAM);
        byte[] zip = Zips.of(Map.of("package.json", "{}", "index.js", "require('http')"));
        Instant before = Instant.now().minusSeconds(1);

        var r = upload(t.http(), zip);

        assertThat(r.status()).as(r.body()).isEqualTo(201);
        JsonNode data = r.json().get("data");
        String id = data.get("id").asText();
        assertThat(id).startsWith("upl_").hasSize(30);
        assertThat(data.get("size_bytes").asLong()).isEqualTo(zip.length);
        assertThat(data.get("sha256").asText())
                .isEqualTo(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(zip)));
        assertThat(Instant.parse(data.get("created_at").asText())).isBetween(before, Instant.now().plusSeconds(1));
        assertThat(data.get("created_at").asText()).endsWith("Z");
        // AppUrls is built before the API port is bound, so with port 0 (tests) only the path can be checked
        assertThat(r.header("Location")).startsWith("http://127.0.0.1:").endsWith("/v1/uploads/" + id);
        assertThat(data.has("path")).isFalse();

        Upload stored = server.slipway().stores().uploads().find(id).orElseThrow();
        assertThat(stored.accountId()).isEqualTo(t.account().id());
        assertThat(stored.path()).isEqualTo(uploadsDir().resolve(id + ".zip").toAbsolutePath());
        assertThat(Files.readAllBytes(stored.path())).isEqualTo(zip);

        var read = t.http().get("/v1/uploads/" + id);
        assertThat(read.status()).isEqualTo(200);
        assertThat(read.json().get("data")).isEqualTo(data);
        assertNoIncomingFiles();
    }

    @Test
    void readingIsForTheOwnerOnly() {
        var owner = server.tenant(Tier.TEAM);
        var stranger = server.tenant(Tier.TEAM);
        String id = upload(owner.http(), Zips.of(Map.of("a.txt", "a"))).json().at("/data/id").asText();

        assertError(stranger.http().get("/v1/uploads/" + id), 403, "forbidden", id);
        assertError(stranger.http().get("/v1/uploads/upl_00000000000000000000000000"), 404, "not_found",
                "upl_00000000000000000000000000");
        assertError(owner.http().get("/v1/uploads/nonsense"), 404, "not_found", "nonsense");
    }

    @Test
    void needsAKey() {
        var r = upload(server.anonymous(), Zips.of(Map.of("a.txt", "a")));
        assertError(r, 401, "unauthorized", "API key");
        assertError(server.anonymous().get("/v1/uploads/upl_00000000000000000000000000"), 401, "unauthorized", "API key");
    }

    @Test
    void onlyZipBodiesAreAccepted() throws Exception {
        var t = server.tenant(Tier.TEAM);
        byte[] zip = Zips.of(Map.of("a.txt", "a"));
        assertError(t.http().send("POST", "/v1/uploads", "application/json", zip), 415, "unsupported_media_type",
                "application/zip");
        assertError(t.http().send("POST", "/v1/uploads", null, zip), 415, "unsupported_media_type", "application/zip");
        assertError(t.http().send("POST", "/v1/uploads", "application/octet-stream", zip), 415, "unsupported_media_type",
                "application/zip");
        assertThat(t.http().send("POST", "/v1/uploads", "Application/Zip; charset=binary", zip).status()).isEqualTo(201);
        assertNoIncomingFiles();
    }

    /** Jetty's parsed Content-Type throws on an unknown charset; that must not become a 500. */
    @Test
    void anUnknownCharsetIsNotAServerError() {
        var t = server.tenant(Tier.TEAM);
        assertThat(t.http().send("POST", "/v1/uploads", "application/zip; charset=nonsense", Zips.of(Map.of("a", "a")))
                .status()).isEqualTo(201);
        assertError(t.http().send("POST", "/v1/uploads", "text/plain; charset=nonsense", new byte[]{1}), 415,
                "unsupported_media_type", "application/zip");
        var project = t.http().send("POST", "/v1/projects", "application/json; charset=nonsense",
                "{\"source\":\"github\",\"repo\":\"acme/charset\"}".getBytes());
        assertThat(project.status()).as(project.body()).isEqualTo(201);
    }

    @Test
    void emptyOrNotAZipOrUnsafeIs400() throws Exception {
        var t = server.tenant(Tier.TEAM);
        assertError(upload(t.http(), new byte[0]), 400, "invalid_request", "body is empty");
        assertError(upload(t.http(), "PK not really a zip".getBytes()), 400, "invalid_request", "not a zip archive");
        assertError(upload(t.http(), new Zips.Builder().file("../evil.txt", "x").build()), 400, "invalid_request",
                "leaves its folder");
        assertError(upload(t.http(), new Zips.Builder().unix("link", 0120777, "/etc/passwd").build()), 400,
                "invalid_request", "symbolic link");
        assertNoIncomingFiles();
    }

    @Test
    void overTheLimitIs413WhetherDeclaredOrStreamed() throws Exception {
        var t = server.tenant(Tier.TEAM);
        byte[] random = new byte[LIMIT];
        new Random(1).nextBytes(random);
        byte[] tooBig = new Zips.Builder().file("noise.bin", random, false).build();
        assertThat(tooBig.length).isGreaterThan(LIMIT);

        assertError(upload(t.http(), tooBig), 413, "payload_too_large", "larger than " + LIMIT + " bytes");

        // no Content-Length: the body arrives chunked and is counted as it is read
        var chunked = t.http().send(HttpRequest.newBuilder(URI.create(server.baseUrl() + "/v1/uploads"))
                .header("Content-Type", "application/zip")
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(tooBig))));
        assertError(chunked, 413, "payload_too_large", "larger than " + LIMIT + " bytes");

        // just under the limit is fine
        byte[] fits = new Zips.Builder().file("noise.bin", Arrays.copyOf(random, LIMIT - 200), false).build();
        assertThat(fits.length).isLessThanOrEqualTo(LIMIT);
        assertThat(upload(t.http(), fits).status()).isEqualTo(201);
        assertNoIncomingFiles();
    }
}
