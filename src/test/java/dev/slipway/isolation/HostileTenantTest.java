package dev.slipway.isolation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.slipway.accounts.Tier;
import dev.slipway.net.EgressAllow;
import dev.slipway.runtime.Instance;
import dev.slipway.runtime.InstanceType;
import dev.slipway.testing.Apps;
import dev.slipway.testing.Await;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.Netns;
import dev.slipway.testing.ServerPerStore;
import dev.slipway.testing.Zips;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tenants are hostile: an attacker's app (and its package's postinstall script) tries every way out of its
 * sandbox next to a victim app of another account, and must get nothing. Next to the host the test makes a
 * private network of its own (a LAN, a cloud's metadata service) with a listener: its 10.x and fd00:: addresses
 * are closed to tenants, the CGNAT range and one IPv6 address that the operator opened
 * ({@code SLIPWAY_EGRESS_ALLOW}) are reached. A world-readable file planted in the host's {@code /etc} is not
 * in a cell's {@code /etc}.
 */
@EachStore
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@EndToEnd
class HostileTenantTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration RUN = Duration.ofSeconds(180);
    /** The test's private network: a random subnet, so that runs at the same time on one machine do not meet. */
    private static final int LAN = ThreadLocalRandom.current().nextInt(1, 250);
    private static final int LAN_PORT = 7000 + LAN;
    private static final String CLOSED_V4 = "10.213." + LAN + ".2";
    private static final String CLOSED_V6 = "fd00:213:" + Integer.toHexString(LAN) + "::2";
    private static final String OPEN_V4 = "100.65." + LAN + ".2";
    private static final String OPEN_V6 = "fd00:213:" + Integer.toHexString(LAN) + "::3";
    private static final Path PLANTED = Path.of("/etc", "slipway-planted-" + UUID.randomUUID() + ".key");
    /** All a cell's {@code /etc} may hold (its own passwd, group and resolv.conf; what its programs need of the host's). */
    private static final Set<String> CELL_ETC = Set.of("passwd", "group", "resolv.conf", "hosts", "host.conf", "nsswitch.conf",
            "gai.conf", "services", "protocols", "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "timezone",
            "locale.alias", "locale.conf", "mime.types", "os-release", "debian_version", "lsb-release", "mtab", "alternatives",
            "ssl", "ca-certificates", "ca-certificates.conf", "pki", "crypto-policies", "gitconfig", "npmrc", "pip.conf", "xdg");

    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.start(c -> c.isolation(IsolationMode.SANDBOX)
            .egressAllow(EgressAllow.parse("100.65." + LAN + ".0/24," + OPEN_V6)));
    static Netns lan;
    static Http attacker;
    static Http victim;
    static String victimSecret;
    static String victimDeployment;
    static Instance victimInstance;
    static String victimUrl;
    static JsonNode hostileMigration;

    @BeforeAll
    static void privateNetworkAndPlantedFile() throws IOException {
        lan = Netns.create()
                .addresses("10.213." + LAN + ".1/24", CLOSED_V4 + "/24")
                .addresses("100.65." + LAN + ".1/24", OPEN_V4 + "/24")
                .addresses("fd00:213:" + Integer.toHexString(LAN) + "::1/64", CLOSED_V6 + "/64")
                .insideOnly(OPEN_V6 + "/64")
                .listen(LAN_PORT, "lan-listener", InetAddress.getByName(CLOSED_V4));
        Files.writeString(PLANTED, "operator-secret");
        Files.setPosixFilePermissions(PLANTED, PosixFilePermissions.fromString("rw-r--r--"));
    }

    @AfterAll
    static void removePrivateNetworkAndPlantedFile() throws IOException {
        try {
            if (lan != null) lan.close();
        } finally {
            Files.deleteIfExists(PLANTED);
        }
    }

    @EachStore.Before
    static void start() {
        attacker = server.tenant(Tier.FREE).http();
        victim = server.tenant(Tier.TEAM).http();
        victimSecret = "victim-secret-" + UUID.randomUUID();
        JsonNode v = migrate(victim, fixture("node-plain"), Map.of("VICTIM_SECRET", victimSecret), "node-express");
        victimDeployment = v.get("deployment_id").asText();
        victimUrl = v.get("url").asText();
        victimInstance = server.slipway().engine().runtime().get(victimDeployment).orElseThrow();
        hostileMigration = migrate(attacker, fixture("hostile"), probeEnv(), "node-express");
    }

    @Test
    void theAppGetsNothing() throws IOException {
        var r = Apps.get(hostileMigration.get("url").asText() + "/probe");
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        assertDenied(JSON.readTree(r.body()), "app");
    }

    @Test
    void itsPostinstallScriptGetsNothing() throws IOException {
        // npm hides what install scripts print: the script leaves its report in the build, the app serves it
        var r = Apps.get(hostileMigration.get("url").asText() + "/build-probe");
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        assertDenied(JSON.readTree(r.body()), "build");
    }

    @Test
    void itCannotTakeTheVictimsPort() throws IOException {
        var bind = Apps.get(hostileMigration.get("url").asText() + "/bind/" + victimInstance.port());
        assertThat(bind.status()).isEqualTo(200); // it may bind that number in its own namespace: nobody sees it
        assertThat(Apps.get(victimUrl).body()).isEqualTo("fixture:node-plain\n");
        assertThat(server.slipway().engine().runtime().get(victimDeployment).orElseThrow().pid()).isEqualTo(victimInstance.pid());
    }

    /**
     * The tenant's environment is theirs: {@code LD_PRELOAD=./evil.so} (built by its own build script) reaches
     * its program, which loads it as the project's uid, and no process of the platform that runs as root, on
     * the host or inside the cell before the drop, ever loads it.
     */
    @Test
    void itsLoaderVariablesNeverReachARootProcess() throws IOException {
        String report = "/tmp/slipway-preload-" + UUID.randomUUID() + ".log";
        Path hostReport = Path.of(report);
        try {
            JsonNode app = migrate(attacker, fixture("preload"), Map.of("LD_PRELOAD", "./evil.so", "PRELOAD_REPORT", report),
                    "node-express");
            var r = Apps.get(app.get("url").asText());
            assertThat(r.status()).as(r.body()).isEqualTo(200);
            JsonNode got = JSON.readTree(r.body());
            assertThat(got.get("ld_preload").asText()).isEqualTo("./evil.so");
            List<String> lines = new ArrayList<>();
            got.get("report").forEach(l -> lines.add(l.asText()));
            assertThat(lines).as("the app itself loaded it").anyMatch(l -> l.endsWith("/node"));
            assertThat(lines).as("every process that loaded it in the cell ran as the project's uid")
                    .allMatch(l -> Integer.parseInt(l.split(" ")[0]) >= Identities.FIRST_UID);
            assertThat(hostReport).as("no process on the host loaded it").doesNotExist();
        } finally {
            Files.deleteIfExists(hostReport);
        }
    }

    @Test
    @Order(90)
    void aForkBombStopsAtTheProcessLimit() throws IOException {
        var r = Apps.get(hostileMigration.get("url").asText() + "/forkbomb");
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        JsonNode got = JSON.readTree(r.body());
        assertThat(got.get("started").asInt()).as("children started").isLessThan(InstanceType.STARTER.processes());
        assertThat(got.get("error").asText()).isEqualTo("EAGAIN");
    }

    @Test
    @Order(100)
    void anAppOverItsMemoryIsKilledAndRestarted() {
        String url = hostileMigration.get("url").asText();
        String deployment = hostileMigration.get("deployment_id").asText();
        var r = Apps.get(url + "/hog");
        assertThat(r.body()).doesNotContain("allocatedMb");
        Await.value(Duration.ofSeconds(60), "the out-of-memory kill in the log", () -> {
            String logs = attacker.get("/v1/deployments/" + deployment + "/logs").body();
            return logs.contains("App crashed: Out of memory (limit 256 MB)") && logs.contains("restarting in") ? logs : null;
        });
        Await.value(Duration.ofSeconds(60), "the app to answer again", () -> Apps.get(url).body().equals("fixture:hostile\n") ? true : null);
    }

    private static void assertDenied(JsonNode report, String who) {
        JsonNode id = report.get("identity");
        assertThat(id.get("uid").asInt()).as(who + " uid").isNotZero().isGreaterThanOrEqualTo(Identities.FIRST_UID);
        assertThat(id.get("gid").asInt()).as(who + " gid").isNotZero();
        // the directories above its own binds exist in its view, holding nothing but the way to them
        Set<String> ownWay = Set.of("artifacts", "workspaces", "cache", attackerArtifact(), attackerProject());
        report.get("files").properties().forEach(f -> {
            String got = f.getValue().asText();
            if (f.getKey().equals("/etc")) {
                assertThat(got).as(who + " listing /etc").startsWith("listed: ");
                List<String> names = List.of(got.substring("listed: ".length()).split(","));
                assertThat(names).as(who + " /etc: a cell's own, and what its programs need of the host's")
                        .contains("passwd", "group", "resolv.conf", "hosts", "nsswitch.conf", "ssl")
                        .doesNotContain(PLANTED.getFileName().toString(), "shadow", "gshadow", "ssh", "sudoers", "machine-id")
                        .allMatch(name -> CELL_ETC.contains(name) || name.startsWith("python3"));
            } else if (got.startsWith("listed: ")) {
                assertThat(got.substring("listed: ".length()).split(",")).as(who + " listing " + f.getKey())
                        .allMatch(name -> name.isEmpty() || ownWay.contains(name));
            } else {
                assertThat(got).as(who + " reading " + f.getKey()).startsWith("denied");
            }
        });
        assertThat(report.at("/procs/secretFoundIn")).as(who + " finding the victim's secret in /proc").isEmpty();
        assertThat(report.at("/procs/visible").asInt()).as(who + " seeing processes").isLessThan(10);
        report.get("signals").properties().forEach(s ->
                assertThat(s.getValue().asText()).as(who + " signalling " + s.getKey()).startsWith("denied"));
        assertThat(report.get("firewall").properties()).as(who + " changing its firewall").hasSize(2).allSatisfy(f ->
                assertThat(f.getValue().asText()).as(who + " " + f.getKey()).startsWith("denied: ").contains("Operation not permitted"));
        assertThat(report.get("tcp").properties().stream().toList()).as(who + " connecting").isNotEmpty();
        report.get("tcp").properties().forEach(t ->
                assertThat(t.getValue().asText()).as(who + " connecting to " + t.getKey()).startsWith("denied"));
        assertThat(report.get("tcpAllowed").properties().stream().map(Map.Entry::getKey).toList()).as(who + " reaching what was opened")
                .containsExactlyInAnyOrder(OPEN_V4 + ":" + LAN_PORT, OPEN_V6 + ":" + LAN_PORT);
        report.get("tcpAllowed").properties().forEach(t ->
                assertThat(t.getValue().asText()).as(who + " connecting to " + t.getKey()).isEqualTo("connected: lan-listener"));
    }

    private static String attackerProject() {
        return hostileMigration.get("project_id").asText();
    }

    private static String attackerArtifact() {
        return server.slipway().stores().deployments().find(hostileMigration.get("deployment_id").asText())
                .orElseThrow().artifactId();
    }

    /** What the attacker aims at: the platform's files, the victim's processes and every port it should not reach. */
    private static Map<String, String> probeEnv() {
        Path data = server.slipway().config().dataDir();
        List<String> files = new ArrayList<>(List.of("/etc", PLANTED.toString(), data.toString(), "/root", "/home", System.getProperty("user.dir"),
                data.resolve("uploads").toString(), data.resolve("artifacts").toString(), data.resolve("workspaces").toString(),
                data.resolve("cache").toString(), "/run/slipway"));
        try (Stream<Path> top = Files.list(data)) {
            top.filter(Files::isRegularFile).forEach(f -> files.add(f.toString()));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        String victimArtifact = server.slipway().stores().deployments().find(victimDeployment).orElseThrow().artifactId();
        files.add(data.resolve("artifacts").resolve(victimArtifact).toString());
        // what outlives the server: the victim's output file (what it prints, secrets too) and the edge's control socket
        files.add(Isolations.outputDir(data, server.slipway().stores().nodeId()).resolve(victimDeployment + ".out").toString());
        files.add(dev.slipway.edge.EdgeLink.socketPath(data).toString());
        List<String> tcp = new ArrayList<>(List.of("127.0.0.1:" + server.slipway().apiPort(),
                "127.0.0.1:" + server.slipway().appsPort(), "127.0.0.1:" + victimInstance.port(),
                "169.254.169.254:80", "127.0.0.1:5432", "127.0.0.1:3306", "127.0.0.1:6379",
                CLOSED_V4 + ":" + LAN_PORT, CLOSED_V6 + ":" + LAN_PORT));
        List<String> hostEnds = hostAddresses().stream().filter(WarmNetworksTest::inCellNetwork).toList();
        assertThat(hostEnds).as("the veth pairs' host ends (the victim's among them)").isNotEmpty();
        for (String address : hostAddresses()) {
            tcp.add(address + ":" + server.slipway().apiPort());
            tcp.add(address + ":" + victimInstance.port());
        }
        // the other end of every pair: the victim's cell is one of them, and its port there is its app's
        for (String hostEnd : hostEnds) tcp.add(WarmNetworksTest.next(hostEnd) + ":" + victimInstance.port());
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PROBE_FILES", String.join(",", files));
        env.put("PROBE_TCP", String.join(",", tcp));
        env.put("PROBE_TCP_ALLOWED", OPEN_V4 + ":" + LAN_PORT + "," + OPEN_V6 + ":" + LAN_PORT);
        env.put("PROBE_PIDS", ProcessHandle.current().pid() + "," + victimInstance.pid());
        env.put("PROBE_SECRET_HEX", HexFormat.of().formatHex(victimSecret.getBytes(StandardCharsets.UTF_8)));
        return env;
    }

    private static List<String> hostAddresses() {
        List<String> out = new ArrayList<>();
        try {
            for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                nic.inetAddresses().filter(a -> a instanceof Inet4Address && !a.isLoopbackAddress())
                        .forEach(a -> out.add(a.getHostAddress()));
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return out;
    }

    static Map<String, String> fixture(String name) {
        Path dir = Path.of("src/test/resources/fixtures", name);
        Map<String, String> files = new LinkedHashMap<>();
        try (Stream<Path> all = Files.list(dir)) {
            for (Path f : all.toList()) files.put(f.getFileName().toString(), Files.readString(f));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return files;
    }

    /** Uploads the files, migrates them with these env vars and waits until the app is live. */
    static JsonNode migrate(Http who, Map<String, String> files, Map<String, String> env, String framework) {
        var up = who.send("POST", "/v1/uploads", "application/zip", Zips.of(files));
        assertThat(up.status()).as(up.body()).isEqualTo(201);
        String body;
        try {
            body = JSON.writeValueAsString(Map.of("source", "zip", "upload_id", up.json().at("/data/id").asText(),
                    "framework", framework, "env_vars", env));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        var m = who.post("/v1/migrations", body);
        assertThat(m.status()).as(m.body()).isEqualTo(201);
        String id = m.json().at("/data/id").asText();
        return Await.value(RUN, "migration " + id + " to complete", () -> {
            JsonNode d = who.get("/v1/migrations/" + id + "?wait=5").json().get("data");
            String status = d.get("status").asText();
            if (status.equals("failed")) {
                throw new AssertionError("migration failed: " + who.get("/v1/migrations/" + id + "/logs").body());
            }
            return status.equals("complete") ? d : null;
        });
    }
}
