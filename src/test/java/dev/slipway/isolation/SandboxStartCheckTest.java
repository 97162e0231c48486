package dev.slipway.isolation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.pipeline.NodeApp;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Apps;
import dev.slipway.testing.Await;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.Statuses;
import dev.slipway.testing.TestServer;
import dev.slipway.testing.TestStore;
import dev.slipway.testing.Zips;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The sandbox's start check runs one real cell before the server says that apps are sandboxed. On a machine whose
 * tun device only root may open (mode 0600, as some container hosts ship it; here a device node the test makes and
 * the server is pointed at, {@code SLIPWAY_SANDBOX_TUN}) every build used to fail in pasta ("Failed to open tun socket
 * in namespace"): each pasta now gets a node of its own and still runs as a uid of its own, and apps run. A tun device
 * that is not one is named by the check, with its fix: the server then serves its first account only, NOT isolated,
 * or with {@code --isolation=sandbox} does not start.
 */
@EndToEnd
class SandboxStartCheckTest {
    static Path devices;

    @BeforeAll
    static void makeDevices() throws IOException {
        devices = Files.createTempDirectory(Path.of("/var/tmp"), "slipway-tun-");
        mknod(devices.resolve("tun"), 10, 200); // the kernel's tun device, as only root may open it
        mknod(devices.resolve("null"), 1, 3);   // a device, but not a tun device
    }

    @AfterAll
    static void deleteDevices() {
        TestStore.deleteTree(devices);
    }

    @Test
    void aTunDeviceOnlyRootMayOpenIsGivenToEachPastaAsANodeOfItsOwnAndAppsRun() throws IOException {
        try (TestServer server = TestServer.start(Dialect.H2, c -> c.environment(environment(devices.resolve("tun"))))) {
            JsonNode ready = server.anonymous().get("/readyz").json();
            assertThat(ready.get("isolation").asText()).as(ready.toString()).isEqualTo("sandbox");
            assertThat(ready.get("accounts").asText()).isEqualTo("all");
            assertThat(ready.get("isolation_detail").asText()).contains("each with a tun device node of its own");

            Http http = server.tenant(Tier.FREE).http();
            var upload = http.send("POST", "/v1/uploads", "application/zip", Zips.of(NodeApp.version("tun")));
            assertThat(upload.status()).as(upload.body()).isEqualTo(201);
            var migration = http.post("/v1/migrations", "{\"source\":\"zip\",\"framework\":\"node-express\",\"upload_id\":\""
                    + upload.json().at("/data/id").asText() + "\"}");
            assertThat(migration.status()).as(migration.body()).isEqualTo(201);
            JsonNode done = Statuses.await(http, "migrations", migration.json().at("/data/id").asText(), "complete",
                    Duration.ofMinutes(3));
            assertThat(Apps.get(done.get("url").asText()).body()).as("the app, through its pasta").startsWith("app:tun");

            Path runDir = Isolations.runDir(server.store().dataDir(), server.slipway().stores().nodeId());
            List<Long> pastas = Pastas.of(runDir);
            assertThat(pastas).as("the app's network, and those made ahead").isNotEmpty();
            // pasta starts as root and drops to its --runas uid once its device and namespace are open: one made
            // ahead may be starting at this moment
            for (long pid : pastas) {
                Await.until(Duration.ofSeconds(60), "pasta " + pid + " to run as a uid of its own (or to end)",
                        () -> uidOf(pid).map(uid -> uid >= Networks.FIRST_PASTA_UID).orElse(true));
            }
        }
    }

    @Test
    void aTunDeviceThatIsNotOneIsNamedByTheStartCheckWithItsFix() throws IOException {
        Path notTun = devices.resolve("null");
        try (TestServer server = TestServer.start(Dialect.H2, c -> c.environment(environment(notTun)))) {
            JsonNode ready = server.anonymous().get("/readyz").json();
            assertThat(ready.get("isolation").asText()).as(ready.toString()).isEqualTo("none");
            assertThat(ready.get("accounts").asText()).isEqualTo("first_only");
            assertThat(ready.get("isolation_detail").asText()).contains("network (the tun device)");
            assertThat(ready.get("warning").asText()).contains("network (the tun device)", "modprobe tun");
        }
        assertThatThrownBy(() -> TestServer.start(Dialect.H2, c -> c.environment(environment(notTun))
                .isolation(IsolationMode.SANDBOX)).close())
                .hasRootCauseInstanceOf(IsolationUnavailable.class)
                .rootCause().hasMessageContaining("network (the tun device)").hasMessageContaining("modprobe tun");
    }

    static Map<String, String> environment(Path tun) {
        Map<String, String> env = new HashMap<>(System.getenv());
        env.put("SLIPWAY_SANDBOX_TUN", tun.toString());
        return env;
    }

    private static void mknod(Path node, int major, int minor) throws IOException {
        Process p = new ProcessBuilder("mknod", "-m", "0600", node.toString(), "c", Integer.toString(major), Integer.toString(minor))
                .redirectErrorStream(true).start();
        try {
            String out = new String(p.getInputStream().readAllBytes());
            assertThat(p.waitFor()).as("mknod: " + out).isZero();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    /** The process's real uid; empty once it has ended. */
    private static Optional<Integer> uidOf(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("Uid:")) return Optional.of(Integer.parseInt(line.split("\\s+")[1]));
            }
        } catch (IOException gone) {
            return Optional.empty();
        }
        throw new AssertionError("no Uid line for " + pid);
    }
}
