package dev.slipway.isolation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.slipway.accounts.Tier;
import dev.slipway.testing.Apps;
import dev.slipway.testing.Await;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.ServerPerStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The artifact is read-only at run time and the app gets a writable scratch directory, {@code TMPDIR}
 *. A hostile app tries to write a log file into its artifact, over its own code, a folder, a chmod,
 * and a file next to the other artifacts; and writes into its TMPDIR. Under the sandbox the artifact is a
 * read-only bind; with {@code --isolation=none} it has no write permission bits (a server running as root
 * bypasses them: docs/security.md says so), and TMPDIR is a per-instance directory outside the data dir, deleted at stop.
 */
@EachStore
@EndToEnd
class ReadOnlyArtifactTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<PosixFilePermission> WRITE = EnumSet.of(PosixFilePermission.OWNER_WRITE,
            PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE);

    @RegisterExtension
    static final ServerPerStore sandboxed = ServerPerStore.start(c -> c.isolation(IsolationMode.SANDBOX));
    @RegisterExtension
    static final ServerPerStore plain = ServerPerStore.start(c -> c.isolation(IsolationMode.NONE));

    @Test
    void aSandboxedAppCannotWriteItsArtifactAndHasAPrivateTmp() throws IOException {
        JsonNode app = HostileTenantTest.migrate(sandboxed.tenant(Tier.FREE).http(), HostileTenantTest.fixture("scratch"),
                Map.of("TMPDIR", "/etc/planted"), "node-express");
        JsonNode report = probe(app);
        Path artifact = artifactOf(sandboxed, app);
        assertThat(report.get("cwd").asText()).isEqualTo(artifact.toString());
        // a new file needs the read-only bind to fail; the kernel may check a file's own mode bits first
        assertThat(report.get("logInArtifact").asText()).isEqualTo("EROFS");
        for (String field : List.of("overwriteCode", "mkdirInArtifact", "chmodArtifact", "nextToArtifact")) {
            assertThat(report.get(field).asText()).as(field).isIn("EROFS", "EACCES", "EPERM");
        }
        // the platform's TMPDIR wins over the tenant's, and it is writable
        assertThat(report.get("tmpdir").asText()).isEqualTo("/tmp");
        assertThat(report.get("writeTmp").asText()).isEqualTo("ok");
        assertThat(report.get("readTmp").asText()).isEqualTo("ok");
        assertUntouched(artifact);
        // the scratch is the cell's own: nothing of it on the host's /tmp
        assertThat(Path.of(report.get("scratchFile").asText())).doesNotExist();
    }

    @Test
    void withoutASandboxTheArtifactHasNoWriteBitsAndTmpdirIsTheInstancesOwn() throws IOException {
        JsonNode app = HostileTenantTest.migrate(plain.tenant(Tier.FREE).http(), HostileTenantTest.fixture("scratch"),
                Map.of("TMPDIR", "/etc/planted"), "node-express");
        Path artifact = artifactOf(plain, app);
        try (Stream<Path> all = Files.walk(artifact)) {
            for (Path p : all.filter(p -> !Files.isSymbolicLink(p)).toList()) {
                assertThat(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS)).as(p.toString()).doesNotContainAnyElementsOf(WRITE);
            }
        }
        JsonNode report = probe(app);
        Path tmp = Path.of(report.get("tmpdir").asText());
        assertThat(report.get("osTmpdir").asText()).isEqualTo(tmp.toString());
        assertThat(tmp).isDirectory();
        assertThat(tmp.startsWith(plain.slipway().config().dataDir())).isFalse();
        assertThat(tmp.startsWith(artifact)).isFalse();
        assertThat(Files.getPosixFilePermissions(tmp)).containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ,
                PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE);
        assertThat(report.get("writeTmp").asText()).isEqualTo("ok");
        assertThat(report.get("readTmp").asText()).isEqualTo("ok");
        if (report.get("uid").asInt() != 0) {
            for (String field : List.of("logInArtifact", "overwriteCode", "mkdirInArtifact", "nextToArtifact")) {
                assertThat(report.get(field).asText()).as(field).isEqualTo("EACCES");
            }
            assertUntouched(artifact);
        }

        String deployment = app.get("deployment_id").asText();
        plain.slipway().engine().runtime().stop(deployment);
        assertThat(tmp).doesNotExist();
    }

    private static JsonNode probe(JsonNode app) throws IOException {
        var r = Await.value(Duration.ofSeconds(30), "the app to answer its probe", () -> {
            var got = Apps.get(app.get("url").asText() + "/probe");
            return got.status() == 200 ? got : null;
        });
        return JSON.readTree(r.body());
    }

    private static Path artifactOf(ServerPerStore server, JsonNode app) {
        String id = server.slipway().stores().deployments().find(app.get("deployment_id").asText()).orElseThrow().artifactId();
        return server.slipway().config().dataDir().resolve("artifacts").resolve(id);
    }

    private static void assertUntouched(Path artifact) throws IOException {
        assertThat(artifact.resolve("app.log")).doesNotExist();
        assertThat(artifact.resolve("uploads")).doesNotExist();
        assertThat(Files.readString(artifact.resolve("server.js"))).isEqualTo(HostileTenantTest.fixture("scratch").get("server.js"));
        try (Stream<Path> siblings = Files.list(artifact.getParent())) {
            assertThat(siblings.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith("planted-"));
        }
    }
}
