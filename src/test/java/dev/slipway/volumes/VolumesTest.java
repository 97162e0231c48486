package dev.slipway.volumes;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.build.Artifact;
import dev.slipway.core.Json;
import dev.slipway.isolation.Cell;
import dev.slipway.isolation.IsolationMode;
import dev.slipway.logs.LogSink;
import dev.slipway.runtime.AppSpec;
import dev.slipway.runtime.Instance;
import dev.slipway.runtime.InstanceType;
import dev.slipway.runtime.Volume;
import dev.slipway.runtime.TestApps;
import dev.slipway.store.Dialect;
import dev.slipway.testing.TestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A project's volume under the sandbox: a file an app writes is there for the next deployment's app; the app that
 * fills it gets ENOSPC at its size while the host's disk keeps its room; another project's volume of the same name is
 * another file system; deleting the project's volumes unmounts and removes them; paths over the system are refused.
 */
class VolumesTest {
    private static final int SIZE_MB = 16;
    private static TestServer server;

    @BeforeAll
    static void start() {
        server = TestServer.start(Dialect.H2, c -> c.isolation(IsolationMode.SANDBOX));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static AppSpec spec(String project, Volume... volumes) throws Exception {
        Path dir = Path.of(VolumesTest.class.getResource("/apps/volume/server.js").toURI()).getParent();
        Artifact artifact = new Artifact("art_" + UUID.randomUUID().toString().substring(0, 8), project, "node-express", "abc123",
                dir, List.of("node", "server.js"), null, Instant.parse("2026-01-01T00:00:00Z"));
        return new AppSpec("dep_" + UUID.randomUUID().toString().replace("-", "").substring(0, 20), project, artifact,
                Map.of("VOLUME", "/data"), Set.of(), InstanceType.STARTER).withVolumes(List.of(volumes));
    }

    /**
     * The bytes the host's disk holds for the files under {@code dir}, on its own file system (not a volume mounted
     * there): what the app's writes took of it, whatever the other tests running beside it write elsewhere.
     */
    private static long diskUsage(Path dir) throws Exception {
        Process du = new ProcessBuilder("du", "-s", "-x", "-B1", dir.toString()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(du.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        du.waitFor();
        assertThat(out).as("du of " + dir).matches("\\d+\\s.*");
        return Long.parseLong(out.split("\\s+")[0]);
    }

    private static JsonNode call(Instance app, String path) throws Exception {
        String body = TestApps.get(app.port(), path);
        assertThat(body).as(path).isNotNull();
        return Json.MAPPER.readTree(body);
    }

    @Test
    void aVolumeKeepsItsFilesAcrossDeploymentsIsFullAtItsSizeAndIsTheProjectsOwn() throws Exception {
        String project = "prj_vol_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        Volume data = new Volume("data", "/data", SIZE_MB);
        var runtime = server.slipway().engine().runtime();

        AppSpec first = spec(project, data);
        Instance one = server.startApp(first, LogSink.DISCARD);
        assertThat(call(one, "/write?name=kept&value=across-deploys").get("ok").asBoolean()).isTrue();
        runtime.stop(first.deploymentId());

        // the next deployment's app: the file is there
        AppSpec second = spec(project, data);
        Instance two = server.startApp(second, LogSink.DISCARD);
        assertThat(call(two, "/read?name=kept").get("value").asText()).isEqualTo("across-deploys");

        // it fills its volume: ENOSPC at its size, and the host's disk holds no more than that for it
        Path dataDir = server.slipway().config().dataDir();
        Path image = dataDir.resolve("volumes").resolve(project).resolve("data.ext4");
        long usedBefore = diskUsage(dataDir);
        JsonNode filled = call(two, "/fill");
        assertThat(filled.get("error").asText()).isEqualTo("ENOSPC");
        assertThat(filled.get("written").asLong()).isLessThan(SIZE_MB * 1024L * 1024).isGreaterThan(SIZE_MB * 1024L * 1024 / 2);
        assertThat(Files.size(image)).isEqualTo(SIZE_MB * 1024L * 1024);
        assertThat(diskUsage(dataDir) - usedBefore).as("the host's disk").isLessThan(SIZE_MB * 1024L * 1024 + 4 * 1024 * 1024);
        assertThat(call(two, "/read?name=kept").get("value").asText()).as("still there after the fill").isEqualTo("across-deploys");

        // another project's volume of the same name is its own file system
        String other = "prj_vol_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        AppSpec theirs = spec(other, new Volume("data", "/data", SIZE_MB));
        Instance three = server.startApp(theirs, LogSink.DISCARD);
        assertThat(call(three, "/list").get("files")).isEmpty();
        assertThat(call(three, "/read?name=kept").get("error").asText()).isEqualTo("ENOENT");

        // deleted with the project: unmounted and gone
        runtime.stop(second.deploymentId());
        runtime.stop(theirs.deploymentId());
        runtime.deleteVolumes(project);
        runtime.deleteVolumes(other);
        assertThat(image.getParent()).doesNotExist();
        assertThat(Files.readString(Path.of("/proc/self/mountinfo"))).doesNotContain(project).doesNotContain(other);
    }

    /** A server that stops its apps unmounts their volumes (and frees their loop devices); the next start mounts them. */
    @Test
    void aServerThatStopsItsAppsUnmountsTheirVolumes() throws Exception {
        String project = "prj_vol_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        TestServer own = TestServer.start(Dialect.H2, c -> c.isolation(IsolationMode.SANDBOX));
        try {
            Instance app = own.startApp(spec(project, new Volume("data", "/data", SIZE_MB)), LogSink.DISCARD);
            assertThat(call(app, "/write?name=kept&value=x").get("ok").asBoolean()).isTrue();
            assertThat(Files.readString(Path.of("/proc/self/mountinfo"))).as("its volume, while it runs").contains(project);
        } finally {
            own.close();
        }
        assertThat(Files.readString(Path.of("/proc/self/mountinfo"))).as("its volume, once the server stopped").doesNotContain(project);
    }

    @Test
    void aVolumeOverTheSystemOrOutsideItsPlaceIsRefused() {
        for (String bad : List.of("/", "/proc", "/proc/self", "/etc/app", "/usr/local/data", "/tmp/x", "data", "/data/../etc",
                "/data/", "/dev/shm")) {
            assertThat(Cell.Mount.problem(bad)).as(bad).isNotNull();
            if (!bad.endsWith("/") || bad.equals("/")) { // a Path drops a trailing '/'
                assertThatThrownBy(() -> new Cell.Mount(Path.of("/srv"), Path.of(bad))).as(bad).isInstanceOf(IllegalArgumentException.class);
            }
        }
        assertThat(Cell.Mount.problem("/data")).isNull();
        assertThat(Cell.Mount.problem("/var/lib/app")).isNull();
    }
}
