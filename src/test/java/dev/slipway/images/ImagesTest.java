package dev.slipway.images;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.build.Artifact;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.ServerPerStore;
import dev.slipway.testing.Statuses;
import dev.slipway.testing.TestServer;
import dev.slipway.testing.WebhookReceiver;
import dev.slipway.webhooks.WebhookSettings;
import java.time.Instant;
import java.util.Arrays;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Builds become OCI images, checked through a real registry's HTTP API: the manifest, its base and
 * artifact layers, the image config; a rollback reuses the digest without an image step; a link out of the
 * artifact (a hostile build's) does not carry its target into the layer; a registry that is down fails the
 * deployment with the reason.
 */
@EachStore
@EndToEnd
class ImagesTest {
    private static final Duration BUILD = Duration.ofMinutes(5);
    static final LoopbackRegistry registry = LoopbackRegistry.start();
    static final String base = registry.pushBase("base/node:test");

    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.withGit(c -> c.images(
            new ImageSettings(registry.host() + "/slipway", Map.of("node", base), true))
            .webhooks(new WebhookSettings(true, List.of(Duration.ofMillis(300)))));

    /** A plain Node server whose build leaves links: one to /etc/shadow, one to /etc, one inside the build. */
    private static Map<String, byte[]> app(String name) {
        String pkg = """
                {"name": "%s", "version": "1.0.0", "private": true, "main": "server.js",
                 "scripts": {"build": "ln -s /etc/shadow leak && mkdir -p d && ln -s /etc d/etc && ln -s server.js alias.js",
                             "start": "node server.js"}}
                """.formatted(name);
        String js = """
                require('http').createServer((q, s) => s.end('image:%s')).listen(process.env.PORT, '127.0.0.1');
                """.formatted(name);
        return Map.of("package.json", pkg.getBytes(StandardCharsets.UTF_8), "server.js", js.getBytes(StandardCharsets.UTF_8));
    }

    private record Deployed(Http http, String projectId, String deploymentId) {}

    private static Deployed migrate(TestServer on, String repo) {
        return migrate(on.tenant(Tier.TEAM).http(), repo);
    }

    private static Deployed migrate(Http http, String repo) {
        server.git().createRepo(repo);
        server.git().commitBytes(repo, "main", app(repo.replace('/', '-')), "the app");
        var r = http.post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"" + repo + "\",\"framework\":\"node\"}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        String migration = r.json().at("/data/id").asText();
        String project = http.get("/v1/migrations/" + migration).json().at("/data/project_id").asText();
        JsonNode list = http.get("/v1/deployments?project_id=" + project + "&limit=100").json().get("data");
        return new Deployed(http, project, list.get(list.size() - 1).get("id").asText());
    }

    private static List<String> messages(Http http, String deploymentId) {
        List<String> out = new ArrayList<>();
        http.get("/v1/deployments/" + deploymentId + "/logs").json().at("/data/logs").forEach(e -> out.add(e.get("message").asText()));
        return out;
    }

    /** From the step's first line to its "Image pushed" line, for the report's numbers. */
    private static Duration imageStep(Http http, String deploymentId) {
        Instant from = null, to = null;
        for (JsonNode e : http.get("/v1/deployments/" + deploymentId + "/logs").json().at("/data/logs")) {
            String m = e.get("message").asText();
            Instant at = Instant.parse(e.get("timestamp").asText());
            if (from == null && m.startsWith("Image")) from = at;
            if (m.startsWith("Image pushed")) to = at;
        }
        return Duration.between(from, to);
    }

    private static Artifact artifactOf(String deploymentId) {
        String id = server.slipway().stores().deployments().find(deploymentId).orElseThrow().artifactId();
        return server.slipway().stores().artifacts().find(id).orElseThrow();
    }

    @Test
    void aBuildIsPushedAsAnImageOfItsBaseAndItsArtifact() throws IOException {
        Deployed d = migrate(server.get(), "images/" + server.kind().name().toLowerCase() + "-app");
        JsonNode live = Statuses.await(d.http(), "deployments", d.deploymentId(), "live", BUILD);
        String repository = "slipway/" + d.projectId().toLowerCase();
        String image = live.get("image").asText();
        assertThat(image).matches(Pattern.quote(registry.host() + "/" + repository) + "@sha256:[0-9a-f]{64}");
        assertThat(messages(d.http(), d.deploymentId())).contains("Image pushed: " + image);
        System.out.println("image step took " + imageStep(d.http(), d.deploymentId()) + " (" + server.kind() + ")");
        String digest = image.substring(image.indexOf('@') + 1);

        JsonNode manifest = registry.manifest(repository, digest);
        assertThat(manifest.get("mediaType").asText()).isEqualTo("application/vnd.oci.image.manifest.v1+json");
        JsonNode layers = manifest.get("layers");
        assertThat(layers).hasSize(2);
        JsonNode baseManifest = registry.manifest("base/node", "test");
        assertThat(layers.get(0).get("digest").asText()).isEqualTo(baseManifest.at("/layers/0/digest").asText());

        Artifact artifact = artifactOf(d.deploymentId());
        JsonNode config = registry.blobJson(repository, manifest.at("/config/digest").asText()).get("config");
        List<String> entrypoint = new ArrayList<>();
        config.get("Entrypoint").forEach(a -> entrypoint.add(a.asText()));
        assertThat(entrypoint).isNotEmpty().isEqualTo(artifact.startCommand().stream().map(a -> a.replace("${PORT}", "8080")).toList());
        assertThat(config.get("WorkingDir").asText()).isEqualTo("/app");
        assertThat(config.get("User").asText()).isEqualTo("65532:65532");
        List<String> env = new ArrayList<>();
        config.get("Env").forEach(e -> env.add(e.asText()));
        assertThat(env).contains("PORT=8080");
        assertThat(config.at("/ExposedPorts").has("8080/tcp")).isTrue();

        // the artifact layer holds the artifact's files, byte for byte
        Map<String, byte[]> layer = registry.layer(repository, layers.get(1).get("digest").asText());
        Set<String> inLayer = new TreeSet<>();
        layer.forEach((name, content) -> { if (content != null) inLayer.add(strip(name)); });
        Set<String> inArtifact = new TreeSet<>();
        Path root = artifact.root();
        try (Stream<Path> walk = Files.walk(root)) {
            walk.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))
                    .forEach(p -> inArtifact.add("app/" + root.relativize(p)));
        }
        inArtifact.add("app/alias.js"); // the link inside the build, stored as a copy of its target
        assertThat(inLayer).isEqualTo(inArtifact);
        assertThat(layer.get(find(layer, "app/server.js"))).isEqualTo(Files.readAllBytes(root.resolve("server.js")));
    }

    @Test
    void aLinkOutOfTheArtifactDoesNotCarryItsTargetIntoTheImage() throws IOException {
        Deployed d = migrate(server.get(), "images/" + server.kind().name().toLowerCase() + "-hostile");
        JsonNode live = Statuses.await(d.http(), "deployments", d.deploymentId(), "live", BUILD);
        Artifact artifact = artifactOf(d.deploymentId());
        // the fixture did leave its links in the artifact: otherwise this test proves nothing
        assertThat(Files.isSymbolicLink(artifact.root().resolve("leak"))).isTrue();
        assertThat(Files.isSymbolicLink(artifact.root().resolve("d/etc"))).isTrue();

        String image = live.get("image").asText();
        String repository = "slipway/" + d.projectId().toLowerCase();
        JsonNode manifest = registry.manifest(repository, image.substring(image.indexOf('@') + 1));
        Map<String, byte[]> layer = registry.layer(repository, manifest.at("/layers/1/digest").asText());
        Set<String> names = new TreeSet<>();
        layer.keySet().forEach(n -> names.add(strip(n)));
        assertThat(names).doesNotContain("app/leak").noneMatch(n -> n.startsWith("app/d/etc"));
        byte[] shadow = Files.readAllBytes(Path.of("/etc/shadow"));
        byte[] passwd = Files.readAllBytes(Path.of("/etc/passwd"));
        assertThat(layer.values()).noneMatch(c -> c != null && (Arrays.equals(c, shadow) || Arrays.equals(c, passwd)));
        assertThat(messages(d.http(), d.deploymentId()))
                .anyMatch(m -> m.contains("left out the link leak"))
                .anyMatch(m -> m.contains("left out the link d/etc"));
    }

    @Test
    void aRollbackUsesTheSameImageWithoutAnImageStep_andWebhooksCarryIt() {
        Http tenant = server.get().tenant(Tier.TEAM).http();
        try (WebhookReceiver receiver = WebhookReceiver.start()) {
            var hook = tenant.post("/v1/webhooks", "{\"url\":\"" + receiver.url("/hooks") + "\",\"events\":[\"deployment.live\"]}");
            assertThat(hook.status()).as(hook.body()).isEqualTo(201);
            Deployed d = migrate(tenant, "images/" + server.kind().name().toLowerCase() + "-rollback");
            String first = rollsBackToTheSameImage(d);
            // deployment.live of the first deployment and of the rollback: the same image as the API shows
            var events = receiver.await(Duration.ofSeconds(30), "the rollback's deployment.live", r ->
                    r.type().equals("deployment.live") && r.json().at("/data/rollback_of").asText().equals(d.deploymentId()));
            assertThat(events.json().at("/data/image").asText()).isEqualTo(first);
            var firstLive = receiver.await(Duration.ofSeconds(30), "the first deployment.live", r ->
                    r.type().equals("deployment.live") && r.json().at("/data/id").asText().equals(d.deploymentId()));
            assertThat(firstLive.json().at("/data/image").asText()).isEqualTo(first);
        }
    }

    /** Returns the first deployment's image, which the rollback to it runs again. */
    private static String rollsBackToTheSameImage(Deployed d) {
        String first = Statuses.await(d.http(), "deployments", d.deploymentId(), "live", BUILD).get("image").asText();
        var again = d.http().post("/v1/deployments", "{\"project_id\":\"" + d.projectId() + "\"}");
        assertThat(again.status()).as(again.body()).isEqualTo(201);
        String second = Statuses.await(d.http(), "deployments", again.json().at("/data/id").asText(), "live", BUILD).get("image").asText();
        assertThat(second).isNotEqualTo(first);

        var rollback = d.http().send("POST", "/v1/deployments/" + d.deploymentId() + "/rollback", null, null);
        assertThat(rollback.status()).as(rollback.body()).isEqualTo(201);
        String id = rollback.json().at("/data/id").asText();
        JsonNode live = Statuses.await(d.http(), "deployments", id, "live", BUILD);
        assertThat(live.get("image").asText()).isEqualTo(first);
        assertThat(messages(d.http(), id)).noneMatch(m -> m.startsWith("Image"));
        return first;
    }

    @Test
    void aRegistryThatIsDownFailsTheDeploymentWithTheReason() {
        String down = "127.0.0.1:" + LoopbackRegistry.freePort();
        try (TestServer other = TestServer.start(server.kind(), c -> c.gitHosts(server.git().hosts())
                .images(new ImageSettings(down + "/slipway", Map.of("node", base), true)))) {
            Deployed d = migrate(other, "images/" + server.kind().name().toLowerCase() + "-down");
            JsonNode failed = Statuses.await(d.http(), "deployments", d.deploymentId(), "failed", BUILD);
            assertThat(failed.get("image").isNull()).isTrue();
            assertThat(messages(d.http(), d.deploymentId())).anyMatch(m -> m.contains("Image push to " + down + "/slipway failed"));
        }
    }

    @Test
    void withoutARegistryThereIsNoImage() {
        try (TestServer plain = TestServer.start(server.kind(), c -> c.gitHosts(server.git().hosts()))) {
            Deployed d = migrate(plain, "images/" + server.kind().name().toLowerCase() + "-off");
            JsonNode live = Statuses.await(d.http(), "deployments", d.deploymentId(), "live", BUILD);
            assertThat(live.get("image").isNull()).isTrue();
            assertThat(messages(d.http(), d.deploymentId())).noneMatch(m -> m.startsWith("Image"));
        }
    }

    private static String strip(String name) {
        String n = name.startsWith("./") ? name.substring(2) : name.startsWith("/") ? name.substring(1) : name;
        return n.endsWith("/") ? n.substring(0, n.length() - 1) : n;
    }

    private static String find(Map<String, byte[]> layer, String name) {
        return layer.keySet().stream().filter(n -> strip(n).equals(name)).findFirst().orElseThrow(() -> new AssertionError(name + " not in " + layer.keySet()));
    }

}
