package dev.slipway.images;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.cloud.tools.jib.api.Containerizer;
import com.google.cloud.tools.jib.api.ImageReference;
import com.google.cloud.tools.jib.api.Jib;
import com.google.cloud.tools.jib.api.JibContainer;
import com.google.cloud.tools.jib.api.RegistryImage;
import com.google.cloud.tools.jib.api.buildplan.AbsoluteUnixPath;
import com.google.cloud.tools.jib.api.buildplan.FileEntriesLayer;
import com.google.cloud.tools.jib.api.buildplan.FilePermissions;
import com.google.cloud.tools.jib.api.buildplan.ImageFormat;
import dev.slipway.accounts.Tier;
import dev.slipway.isolation.SandboxTools;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Apps;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.Statuses;
import dev.slipway.testing.TestServer;
import dev.slipway.testing.TestStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Prebuilt OCI images deployed from a real registry on loopback ({@code docker-registry}): images made here from a
 * static busybox, copied with skopeo, unpacked with umoci, run in the app's cell with the image as its {@code /}. A tag
 * is resolved to a digest once, so a rollback after the tag moved runs the old bytes. A hostile image gets nothing
 * of the host (its USER root and its loader variable change nothing; a setuid binary in an image is ImageCellTest's);
 * an image larger than the limit fails with its reason and leaves nothing behind. H2 only.
 */
@EndToEnd
class PrebuiltImageTest {
    private static final Duration RUN = Duration.ofMinutes(3);
    private static final int MAX_MB = 16;
    /** Serves one line that says which image it is and what it was given. */
    private static final String SERVE = """
            B=/bin/busybox
            $B mkdir -p /tmp/www
            echo "image:$VERSION greeting:$GREETING uid:$($B id -u) dir:$($B pwd) config:$($B cat /srv/private/config)" > /tmp/www/index.html
            exec $B httpd -f -p $PORT -h /tmp/www
            """;
    /** What a hostile image tries, reported on its page. */
    private static final String PROBE = """
            B=/bin/busybox
            $B mkdir -p /tmp/www
            {
            echo "uid $($B id -u)"
            echo "preload ${LD_PRELOAD:-none}"
            if [ -e /etc/shadow ]; then echo "host etc visible"; else echo "host etc absent"; fi
            if [ -e "$DATA_DIR" ]; then echo "data dir visible"; else echo "data dir absent"; fi
            if $B mount -t tmpfs none /mnt 2>/dev/null; then echo "mount worked"; else echo "mount refused"; fi
            if $B nc -w 3 127.0.0.1 $API_PORT </dev/null >/dev/null 2>&1; then echo "api reached"; else echo "api unreachable"; fi
            if $B touch /pwned 2>/dev/null; then echo "root written"; else echo "root read-only"; fi
            echo "processes $($B ls /proc | $B grep -c '^[0-9]')"
            } > /tmp/www/index.html
            exec $B httpd -f -p $PORT -h /tmp/www
            """;

    static LoopbackRegistry registry;
    static TestServer server;
    static Http http;
    static Path files;

    @BeforeAll
    static void start() throws IOException {
        assertThat(SandboxTools.detect().missing()).as("the sandbox's tools (.ci/run installs them)").isEmpty();
        for (String tool : List.of("/usr/bin/skopeo", "/usr/bin/umoci", "/usr/bin/busybox")) {
            assertThat(Path.of(tool)).as(tool + ": apt-get install skopeo umoci busybox-static (.ci/run installs them)").isExecutable();
        }
        registry = LoopbackRegistry.start();
        server = TestServer.start(Dialect.H2, c -> c.images(new ImageSettings(null, Map.of(), true, MAX_MB)));
        http = server.tenant(Tier.TEAM).http();
        files = Files.createTempDirectory("slipway-image-files-");
    }

    @AfterAll
    static void stop() {
        if (server != null) server.close();
        if (registry != null) registry.close();
        if (files != null) TestStore.deleteTree(files);
    }

    @Test
    void anImageDeploysByTagAndByDigestAndARollbackAfterTheTagMovedRunsTheOldDigest() {
        String tag = registry.host() + "/team/web:live";
        String one = push(tag, SERVE, Map.of("VERSION", "one", "GREETING", "from-image"), null);
        var created = http.post("/v1/migrations", "{\"source\":\"image\",\"image\":\"" + tag + "\","
                + "\"env_vars\":{\"GREETING\":\"from-project\"}}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        String migration = created.json().at("/data/id").asText();
        JsonNode done = Statuses.await(http, "migrations", migration, "complete", RUN);
        assertThat(done.get("source").asText()).isEqualTo("image");
        assertThat(done.get("image").asText()).isEqualTo(tag);
        assertThat(done.get("repo").isNull()).isTrue();
        assertThat(done.get("framework").asText()).isEqualTo("image");
        String projectId = done.get("project_id").asText();
        JsonNode project = http.get("/v1/projects/" + projectId).json().get("data");
        assertThat(project.get("name").asText()).startsWith("web");
        String url = project.get("url").asText();
        String first = done.get("deployment_id").asText();
        JsonNode firstRead = http.get("/v1/deployments/" + first).json().get("data");
        assertThat(firstRead.get("image").asText()).isEqualTo(registry.host() + "/team/web@" + one);
        String page = Apps.get(url).body();
        assertThat(page).as("a file the image keeps at 0600 in a 0700 folder is the app's to read, whatever uid it runs as")
                .startsWith("image:one greeting:from-project uid:").endsWith(" dir:/srv config:kept-private\n");
        assertThat(page).doesNotContain("uid:0 ");
        assertThat(messages(first)).anyMatch(m -> m.contains("Copying blob")).anyMatch(m -> m.startsWith("Image " + tag + " is "));

        String two = push(tag, SERVE, Map.of("VERSION", "two", "GREETING", "from-image"), null);
        assertThat(two).isNotEqualTo(one);
        String second = deploy("{\"project_id\":\"" + projectId + "\"}");
        assertThat(http.get("/v1/deployments/" + second).json().at("/data/image").asText())
                .isEqualTo(registry.host() + "/team/web@" + two);
        assertThat(Apps.get(url).body()).startsWith("image:two ");

        var rollback = http.send("POST", "/v1/deployments/" + first + "/rollback", null, null);
        assertThat(rollback.status()).as(rollback.body()).isEqualTo(201);
        String back = rollback.json().at("/data/id").asText();
        JsonNode live = Statuses.await(http, "deployments", back, "live", RUN);
        assertThat(live.get("image").asText()).isEqualTo(registry.host() + "/team/web@" + one);
        assertThat(Apps.get(url).body()).startsWith("image:one ");

        // by digest: the project ran these bytes before, so nothing is pulled again
        String pinned = deploy("{\"project_id\":\"" + projectId + "\",\"image\":\"" + registry.host() + "/team/web@" + two + "\"}");
        assertThat(Apps.get(url).body()).startsWith("image:two ");
        assertThat(messages(pinned)).anyMatch(m -> m.startsWith("The project ran this image before"))
                .noneMatch(m -> m.contains("Copying blob"));
    }

    @Test
    void aHostileImageRunsAsTheProjectsUidAndGetsNothingOfTheHost() {
        String ref = registry.host() + "/evil/probe:1";
        push(ref, PROBE, Map.of("LD_PRELOAD", "/nonexistent/evil.so"), "0:0");
        var created = http.post("/v1/migrations", "{\"source\":\"image\",\"image\":\"" + ref + "\",\"env_vars\":{"
                + "\"DATA_DIR\":\"" + server.store().dataDir() + "\",\"API_PORT\":\"" + server.slipway().apiPort() + "\"}}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        JsonNode done = Statuses.await(http, "migrations", created.json().at("/data/id").asText(), "complete", RUN);
        String url = http.get("/v1/projects/" + done.get("project_id").asText()).json().at("/data/url").asText();
        List<String> report = Apps.get(url).body().lines().toList();
        System.out.println("hostile image reported: " + report);
        assertThat(report.getFirst()).startsWith("uid ").isNotEqualTo("uid 0");
        assertThat(report.subList(1, report.size() - 1)).containsExactly(
                "preload /nonexistent/evil.so",
                "host etc absent",
                "data dir absent",
                "mount refused",
                "api unreachable",
                "root read-only");
        int processes = Integer.parseInt(report.getLast().substring("processes ".length()));
        assertThat(processes).as("the cell sees its own processes only").isLessThan(10);
    }

    @Test
    void anImageLargerThanTheLimitFailsWithItsReasonAndLeavesNothingBehind() throws IOException {
        String ref = registry.host() + "/big/zeros:1";
        Path zeros = files.resolve("zeros");
        try (OutputStream out = Files.newOutputStream(zeros)) {
            byte[] mb = new byte[1 << 20];
            for (int i = 0; i < MAX_MB * 3; i++) out.write(mb);
        }
        push(ref, SERVE, Map.of(), null, zeros);
        Set<String> before = artifactDirs();
        var created = http.post("/v1/migrations", "{\"source\":\"image\",\"image\":\"" + ref + "\"}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        String migration = created.json().at("/data/id").asText();
        JsonNode failed = Statuses.await(http, "migrations", migration, "failed", RUN);
        String deployment = failed.get("deployment_id").asText();
        assertThat(messages(deployment)).anyMatch(m -> m.startsWith("Deployment failed: Cannot pull " + registry.host() + "/big/zeros@sha256:")
                && m.contains("unpacks to more than " + MAX_MB + " MB"));
        assertThat(artifactDirs()).isEqualTo(before);
        assertThat(children(server.store().dataDir().resolve("image-pulls"))).isEmpty();

        // incompressible: refused from its manifest, before a byte of it is copied
        String noise = registry.host() + "/big/noise:1";
        Path random = files.resolve("noise");
        try (OutputStream out = Files.newOutputStream(random)) {
            byte[] mb = new byte[1 << 20];
            Random bytes = new Random(7);
            for (int i = 0; i < MAX_MB * 2; i++) {
                bytes.nextBytes(mb);
                out.write(mb);
            }
        }
        push(noise, SERVE, Map.of(), null, random);
        var large = http.post("/v1/migrations", "{\"source\":\"image\",\"image\":\"" + noise + "\"}");
        assertThat(large.status()).as(large.body()).isEqualTo(201);
        JsonNode refused = Statuses.await(http, "migrations", large.json().at("/data/id").asText(), "failed", RUN);
        List<String> log = messages(refused.get("deployment_id").asText());
        assertThat(log).anyMatch(m -> m.startsWith("Deployment failed: Cannot pull " + noise + ": the image is ")
                && m.contains("MB compressed, more than the limit of " + MAX_MB + " MB")).noneMatch(m -> m.contains("Copying blob"));
        assertThat(artifactDirs()).isEqualTo(before);
    }

    @Test
    void badImagesAndReferencesGetClearAnswers() {
        var invalid = http.post("/v1/migrations", "{\"source\":\"image\",\"image\":\"Not An Image\"}");
        assertThat(invalid.status()).as(invalid.body()).isEqualTo(400);
        assertThat(invalid.body()).contains("image");
        var missing = http.post("/v1/migrations", "{\"source\":\"image\"}");
        assertThat(missing.status()).as(missing.body()).isEqualTo(400);
        var withRepo = http.post("/v1/migrations", "{\"source\":\"image\",\"image\":\"" + registry.host() + "/a/b:1\",\"repo\":\"a/b\"}");
        assertThat(withRepo.status()).as(withRepo.body()).isEqualTo(400);
        var onGit = http.post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"a/b\",\"image\":\"" + registry.host() + "/a/b:1\"}");
        assertThat(onGit.status()).as(onGit.body()).isEqualTo(400);

        var unknown = http.post("/v1/migrations", "{\"source\":\"image\",\"image\":\"" + registry.host() + "/nothing/here:v1\"}");
        assertThat(unknown.status()).as(unknown.body()).isEqualTo(201);
        JsonNode failed = Statuses.await(http, "migrations", unknown.json().at("/data/id").asText(), "failed", RUN);
        assertThat(messages(failed.get("deployment_id").asText()))
                .anyMatch(m -> m.startsWith("Deployment failed: Cannot pull " + registry.host() + "/nothing/here:v1: ")
                        && m.contains("manifest unknown"));
        var notAnImageProject = http.post("/v1/deployments", "{\"project_id\":\"" + failed.get("project_id").asText()
                + "\",\"commit_sha\":\"abcdef1\"}");
        assertThat(notAnImageProject.status()).as(notAnImageProject.body()).isEqualTo(400);
    }

    @Test
    void aPrivateImagePullsWithTheProjectsLoginWhichIsNeverShownNorLogged() {
        String password = "registry-pass-7c1e9b24";
        try (LoopbackRegistry locked = LoopbackRegistry.start("ci-bot", password)) {
            String ref = locked.host() + "/team/private:1";
            pushAs(ref, "ci-bot", password);
            var without = http.post("/v1/migrations", "{\"source\":\"image\",\"image\":\"" + ref + "\"}");
            JsonNode refused = Statuses.await(http, "migrations", without.json().at("/data/id").asText(), "failed", RUN);
            assertThat(messages(refused.get("deployment_id").asText()))
                    .anyMatch(m -> m.startsWith("Deployment failed: Cannot pull " + ref + ": ") && m.contains("unauthorized"));

            var created = http.post("/v1/migrations", "{\"source\":\"image\",\"image\":\"" + ref + "\","
                    + "\"registry_auth\":{\"username\":\"ci-bot\",\"password\":\"" + password + "\"}}");
            assertThat(created.status()).as(created.body()).isEqualTo(201);
            assertThat(created.body()).doesNotContain(password);
            JsonNode done = Statuses.await(http, "migrations", created.json().at("/data/id").asText(), "complete", RUN);
            var project = http.get("/v1/projects/" + done.get("project_id").asText());
            assertThat(project.json().at("/data/registry_auth/registry").asText()).isEqualTo(locked.host());
            assertThat(project.json().at("/data/registry_auth/username").asText()).isEqualTo("ci-bot");
            assertThat(project.body()).doesNotContain(password);
            assertThat(http.get("/v1/projects?limit=100").body()).doesNotContain(password);
            String log = http.get("/v1/deployments/" + done.get("deployment_id").asText() + "/logs").body();
            assertThat(log).contains("Copying blob").doesNotContain(password);
            assertThat(Apps.get(project.json().at("/data/url").asText()).body()).startsWith("image:private ");
        }
    }

    private static String deploy(String body) {
        var r = http.post("/v1/deployments", body);
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        String id = r.json().at("/data/id").asText();
        Statuses.await(http, "deployments", id, "live", RUN);
        return id;
    }

    /** A serving image pushed to a registry that wants a login. */
    private static void pushAs(String ref, String user, String password) {
        System.setProperty("sendCredentialsOverHttp", "true"); // Jib's switch for a plain-HTTP registry on loopback
        try {
            Path dir = Files.createTempDirectory(files, "private-");
            Path serve = Files.writeString(dir.resolve("serve.sh"), SERVE, StandardCharsets.UTF_8);
            FileEntriesLayer layer = FileEntriesLayer.builder().setName("app")
                    .addEntry(Path.of("/usr/bin/busybox"), AbsoluteUnixPath.get("/bin/busybox"), FilePermissions.fromOctalString("755"))
                    .addEntry(serve, AbsoluteUnixPath.get("/srv/serve.sh"), FilePermissions.fromOctalString("644")).build();
            Jib.fromScratch().addFileEntriesLayer(layer).setEntrypoint(List.of("/bin/busybox", "sh", "serve.sh"))
                    .setEnvironment(Map.of("VERSION", "private")).setWorkingDirectory(AbsoluteUnixPath.get("/srv"))
                    .setFormat(ImageFormat.OCI)
                    .containerize(Containerizer.to(RegistryImage.named(ImageReference.parse(ref)).addCredential(user, password))
                            .setAllowInsecureRegistries(true)
                            .setBaseImageLayersCache(files.resolve("cache-base")).setApplicationLayersCache(files.resolve("cache-app")));
        } catch (Exception e) {
            throw new AssertionError("pushing " + ref, e);
        }
    }

    private static List<String> messages(String deploymentId) {
        List<String> out = new ArrayList<>();
        http.get("/v1/deployments/" + deploymentId + "/logs").json().at("/data/logs").forEach(e -> out.add(e.get("message").asText()));
        return out;
    }

    private static Set<String> artifactDirs() {
        return Set.copyOf(children(server.store().dataDir().resolve("artifacts")));
    }

    private static List<String> children(Path dir) {
        if (!Files.isDirectory(dir)) return List.of();
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).toList();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * Pushes an image of a static busybox at {@code /bin/busybox} running {@code script} in {@code /srv}, with {@code env}
     * in its config, as {@code user} (null: none named); {@code extra} files at {@code /data/}.
     *
     * @return the digest of its manifest
     */
    private static String push(String ref, String script, Map<String, String> env, String user, Path... extra) {
        try {
            Path dir = Files.createTempDirectory(files, "image-");
            Path serve = Files.writeString(dir.resolve("serve.sh"), script, StandardCharsets.UTF_8);
            FileEntriesLayer.Builder layer = FileEntriesLayer.builder().setName("app")
                    .addEntry(Path.of("/usr/bin/busybox"), AbsoluteUnixPath.get("/bin/busybox"), FilePermissions.fromOctalString("755"))
                    .addEntry(serve, AbsoluteUnixPath.get("/srv/serve.sh"), FilePermissions.fromOctalString("644"));
            Path config = Files.writeString(Files.createDirectories(dir.resolve("private")).resolve("config"), "kept-private\n");
            layer.addEntry(config.getParent(), AbsoluteUnixPath.get("/srv/private"), FilePermissions.fromOctalString("700"))
                    .addEntry(config, AbsoluteUnixPath.get("/srv/private/config"), FilePermissions.fromOctalString("600"));
            Files.createDirectories(dir.resolve("empty"));
            layer.addEntry(dir.resolve("empty"), AbsoluteUnixPath.get("/mnt"));
            for (Path file : extra) layer.addEntry(file, AbsoluteUnixPath.get("/data/" + file.getFileName()));
            var builder = Jib.fromScratch().addFileEntriesLayer(layer.build())
                    .setEntrypoint(List.of("/bin/busybox", "sh", "serve.sh"))
                    .setEnvironment(new LinkedHashMap<>(env))
                    .setWorkingDirectory(AbsoluteUnixPath.get("/srv"))
                    .setFormat(ImageFormat.OCI);
            if (user != null) builder.setUser(user);
            JibContainer pushed = builder.containerize(Containerizer.to(RegistryImage.named(ImageReference.parse(ref)))
                    .setAllowInsecureRegistries(true)
                    .setBaseImageLayersCache(files.resolve("cache-base"))
                    .setApplicationLayersCache(files.resolve("cache-app")));
            return pushed.getDigest().toString();
        } catch (Exception e) {
            throw new AssertionError("pushing " + ref, e);
        }
    }
}
