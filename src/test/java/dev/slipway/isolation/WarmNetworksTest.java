package dev.slipway.isolation;

import dev.slipway.net.DatabaseEndpoint;
import dev.slipway.store.Database;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Await;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.TestStore;
import java.nio.file.DirectoryNotEmptyException;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Cell networks made ahead ({@link WarmNetworks}): an app starts in the ready network behind its reserved port,
 * a build step in a ready closed one; every cell's network is its own, behind the same firewall; a cell that
 * needs a forward to a database on this host gets a network made for it; close() leaves no pasta behind. An app's
 * cell starts with twice its CPU quota until its start is over.
 */
@EndToEnd
class WarmNetworksTest {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    /**
     * Serves on $PORT: GET / answers the cell's network namespace, /probe?port=N[&host=A] whether A:N (127.0.0.1 by
     * default) connects, /peer the address its request came from.
     */
    private static final String APP = """
            const http = require('http'), net = require('net'), fs = require('fs');
            const probe = (port, host) => new Promise((done) => {
              const s = net.connect(port, host || '127.0.0.1');
              s.setTimeout(1000);
              s.on('connect', () => { s.destroy(); done('connected'); });
              s.on('error', (e) => done(e.code));
              s.on('timeout', () => { s.destroy(); done('timeout'); });
            });
            if (!process.env.PORT) {
              probe(+process.env.PROBE).then((r) => console.log(fs.readlinkSync('/proc/self/ns/net') + ' ' + r));
            } else {
              http.createServer(async (req, res) => {
                const u = new URL(req.url, 'http://x');
                res.end(u.pathname === '/probe' ? await probe(+u.searchParams.get('port'), u.searchParams.get('host'))
                  : u.pathname === '/peer' ? req.socket.remoteAddress : fs.readlinkSync('/proc/self/ns/net'));
              }).listen(+process.env.PORT, '127.0.0.1');
            }
            """;

    static TestStore store;
    static Database database;
    static Sandbox sandbox;
    static Path runDir;
    static String scope;
    static Path workDir;
    /** A service of the host's loopback (as the API or the store are): no cell may reach it. */
    static ServerSocket platform;
    /** A configured database admin server on the host's loopback: reachable by a cell whose project's database is there. */
    static ServerSocket databaseServer;

    @BeforeAll
    static void start() throws IOException {
        SandboxTools.Detection found = SandboxTools.detect();
        assertThat(found.missing()).as("the sandbox's tools (.ci/run installs them)").isEmpty();
        store = TestStore.create(Dialect.H2);
        database = Database.open(store.jdbcUrl(), 2);
        platform = new ServerSocket(0);
        databaseServer = new ServerSocket(0);
        scope = "wn" + UUID.randomUUID().toString().substring(0, 8);
        runDir = Path.of("/run/slipway-test", scope);
        workDir = Files.createTempDirectory(Path.of("/var/tmp"), "slipway-wn-");
        Files.setPosixFilePermissions(workDir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.writeString(workDir.resolve("app.js"), APP);
        Files.setPosixFilePermissions(workDir.resolve("app.js"), PosixFilePermissions.fromString("rw-r--r--"));
        sandbox = new Sandbox(found.tools(), new Identities(database.jdbi()),
                new NetworkPolicy(List.of(), List.of(), Set.of(databaseServer.getLocalPort())), runDir, scope, 1);
        sandbox.sweep(); // as a server's start does: from here networks are made ahead
    }

    @AfterAll
    static void stop() throws IOException {
        try {
            // the filler idle, both kinds ready: a network still being made at close() (at the lowest priority, slow on a
            // loaded machine) is removed by the filler after close() returns, and would keep the run dir a while
            Await.until(Duration.ofSeconds(60), "the ready networks, before close()", () -> !sandbox.quietForStart()
                    && sandbox.readyNetworks()[0] >= 1 && sandbox.readyNetworks()[1] >= 1);
            assertThat(Pastas.of(runDir)).as("the ready networks' pastas").isNotEmpty();
            sandbox.close();
            assertThat(Pastas.of(runDir)).as("pastas left after close()").isEmpty();
            assertThat(Files.exists(runDir)).isFalse();
            try {
                Files.deleteIfExists(runDir.getParent());
            } catch (DirectoryNotEmptyException another) {
                // another run's
            }
        } finally {
            platform.close();
            databaseServer.close();
            database.close();
            store.close();
            try (var files = Files.walk(workDir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
            }
        }
    }

    @Test
    void anAppStartsInTheReadyNetworkBehindItsReservedPortAndEachNetworkIsItsOwn() throws Exception {
        int port = reserve();
        assertThat(held(port)).as("the network behind a reserved port holds it before the app starts").isTrue();
        Set<Long> ready = readyNamespaces();
        Confined first = sandbox.start(app("wn-app-1", port, Map.of()));
        try {
            String ns = Await.value(Duration.ofSeconds(10), "the app to answer", () -> get(port, "/"));
            assertThat(ready).as("it runs in a network made before it started").contains(inode(ns));
            assertThat(inode(ns)).isNotEqualTo(ownNamespace());
            assertThat(get(port, "/probe?port=" + platform.getLocalPort())).as("the host's loopback").isEqualTo("ECONNREFUSED");
            assertThat(get(port, "/probe?port=" + databaseServer.getLocalPort())).as("a database it does not use").isEqualTo("ECONNREFUSED");

            int second = reserve();
            Confined other = sandbox.start(app("wn-app-2", second, Map.of()));
            try {
                String ns2 = Await.value(Duration.ofSeconds(10), "the second app to answer", () -> get(second, "/"));
                assertThat(inode(ns2)).as("no two cells share a network").isNotEqualTo(inode(ns));
            } finally {
                other.release();
            }
        } finally {
            first.release();
        }
        assertThat(connects(port)).as("released: nothing holds its port").isFalse();
    }

    @Test
    void aBuildStepRunsInAReadyClosedNetwork() throws Exception {
        Await.until(Duration.ofSeconds(10), "a closed network to be ready", () -> sandbox.readyNetworks()[1] >= 1);
        Set<Long> ready = readyNamespaces();
        Confined step = sandbox.start(new Cell(Sandbox.BUILD_PREFIX + "wn-1", "prj_wn_build", List.of("/usr/bin/node", "app.js"),
                workDir, Map.of("PATH", "/usr/bin", "PROBE", Integer.toString(platform.getLocalPort())),
                List.of(workDir), List.of(), List.of(), limits(), 0, false));
        try {
            String out = new String(step.process().getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            assertThat(step.process().waitFor()).as(out).isZero();
            String[] parts = out.split(" ");
            assertThat(ready).as("it ran in a network made before it started").contains(inode(parts[0]));
            assertThat(parts[1]).as("the host's loopback from a build step").isEqualTo("ECONNREFUSED");
        } finally {
            step.release();
        }
    }

    @Test
    void aCellThatNeedsItsDatabaseOnThisHostGetsANetworkMadeForIt() throws Exception {
        int port = reserve();
        String url = "postgres://app:pw@127.0.0.1:" + databaseServer.getLocalPort() + "/app";
        Confined app = sandbox.start(app("wn-db-1", port, Map.of("DATABASE_URL", url),
                new DatabaseEndpoint("127.0.0.1", databaseServer.getLocalPort(), true)));
        try {
            String ns = Await.value(Duration.ofSeconds(10), "the app to answer", () -> get(port, "/"));
            // the ready network has no forward to the database: one is made for the cell, named after it
            // (inode numbers of namespaces are reused, so the reserved one's may come back)
            Path own = runDir.resolve("wn-db-1.net");
            assertThat(own).exists();
            assertThat(((Number) Files.getAttribute(own, "unix:ino")).longValue()).isEqualTo(inode(ns));
            assertThat(get(port, "/probe?port=" + databaseServer.getLocalPort())).as("its own database").isEqualTo("connected");
            assertThat(get(port, "/probe?port=" + platform.getLocalPort())).isEqualTo("ECONNREFUSED");
        } finally {
            app.release();
        }
    }

    /**
     * A tenant's own variables name the database admin server's loopback port (DATABASE_URL is one a deployment's
     * env_vars may set; SHADOW_DATABASE_URL any): the cell has no database of the platform's, so it gets no forward,
     * and the port stays as closed as the rest of the host's loopback.
     */
    @Test
    void aCellWhoseOwnVariablesNameTheDatabaseServerGetsNoForwardWithoutItsDatabase() throws Exception {
        int port = reserve();
        String url = "postgres://app:pw@127.0.0.1:" + databaseServer.getLocalPort() + "/app";
        Confined app = sandbox.start(app("wn-nodb-1", port, Map.of("DATABASE_URL", url, "SHADOW_DATABASE_URL",
                "mysql://root@localhost:" + databaseServer.getLocalPort() + "/x")));
        try {
            Await.value(Duration.ofSeconds(10), "the app to answer", () -> get(port, "/"));
            assertThat(get(port, "/probe?port=" + databaseServer.getLocalPort())).as("the admin server's port").isEqualTo("ECONNREFUSED");
            assertThat(runDir.resolve("wn-nodb-1.net")).as("no network made for a forward").doesNotExist();
        } finally {
            app.release();
        }
        // a build step: its variables open nothing; its project's database, as recorded, does
        assertThat(probeFromBuildStep("wn-nodb-2", Map.of("DATABASE_URL", url), null)).isEqualTo("ECONNREFUSED");
        assertThat(probeFromBuildStep("wn-nodb-3", Map.of(),
                new DatabaseEndpoint("127.0.0.1", databaseServer.getLocalPort(), true))).isEqualTo("connected");
    }

    /** What a build step's connection to the database server gives. */
    private static String probeFromBuildStep(String name, Map<String, String> env, DatabaseEndpoint database) throws Exception {
        var all = new HashMap<>(env);
        all.put("PATH", "/usr/bin");
        all.put("PROBE", Integer.toString(databaseServer.getLocalPort()));
        Confined step = sandbox.start(new Cell(Sandbox.BUILD_PREFIX + name, "prj_wn_build", List.of("/usr/bin/node", "app.js"),
                workDir, all, List.of(workDir), List.of(), List.of(), limits(), 0, false, database));
        try {
            String out = new String(step.process().getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            assertThat(step.process().waitFor()).as(out).isZero();
            return out.split(" ")[1];
        } finally {
            step.release();
        }
    }

    /**
     * pasta parses every packet a tenant sends, so it never runs as root or as a tenant: each network's pasta has
     * a uid of its own, in the range below the projects', and lives in its network's user namespace, not the
     * host's (the hostile tenant's firewall probe shows that the tenant's uid gains nothing from that namespace).
     */
    @Test
    void eachNetworksPastaRunsAsAUidOfItsOwnNeverRootNorATenant() throws Exception {
        Await.until(Duration.ofSeconds(10), "an open and a closed network to be ready",
                () -> sandbox.readyNetworks()[0] >= 1 && sandbox.readyNetworks()[1] >= 1);
        List<Long> pastas = Pastas.of(runDir);
        assertThat(pastas).hasSizeGreaterThanOrEqualTo(2);
        String hostUsers = Files.readSymbolicLink(Path.of("/proc/self/ns/user")).toString();
        Set<Integer> uids = new HashSet<>();
        int alive = 0;
        for (long pid : pastas) {
            // pasta starts as root and drops to its --runas uid once set up: one being made ahead may be starting now
            Path status = Path.of("/proc", Long.toString(pid), "status");
            Await.until(Duration.ofSeconds(60), "pasta " + pid + " to drop root (or to end)", () -> {
                try {
                    return Files.readAllLines(status).stream().noneMatch(l -> l.matches("Uid:\\s+0\\b.*"));
                } catch (IOException gone) {
                    return true;
                }
            });
            if (!Files.exists(status)) continue;
            alive++;
            List<String> ids = Files.readAllLines(status).stream()
                    .filter(l -> l.startsWith("Uid:") || l.startsWith("Gid:"))
                    .flatMap(l -> Arrays.stream(l.substring(4).trim().split("\\s+"))).distinct().toList();
            assertThat(ids).as("pasta %d's real, effective, saved and file-system uid and gid", pid).hasSize(1);
            int uid = Integer.parseInt(ids.getFirst());
            assertThat(uid).as("pasta %d's uid", pid).isBetween(Networks.FIRST_PASTA_UID, Identities.FIRST_UID - 1);
            assertThat(Files.readSymbolicLink(Path.of("/proc", Long.toString(pid), "ns", "user")).toString())
                    .as("pasta %d's user namespace", pid).isNotEqualTo(hostUsers);
            uids.add(uid);
        }
        assertThat(alive).isGreaterThanOrEqualTo(2);
        assertThat(uids).as("one uid per network").hasSize(alive);
    }

    /**
     * Where a pasta of its own uid cannot work (here: a run dir other users cannot pass through, so it could not
     * write its pid file; elsewhere a kernel that refuses the user namespace), networks are made as before, with
     * a root pasta, and still carry a cell's traffic.
     */
    @Test
    void whereAPastaOfItsOwnUidCannotWorkNetworksAreMadeAsBefore() throws Exception {
        Path closed = runDir.getParent().resolve("closed" + UUID.randomUUID().toString().substring(0, 8));
        Path dir = closed.resolve("run");
        Files.createDirectories(dir);
        Files.setPosixFilePermissions(closed, PosixFilePermissions.fromString("rwx------"));
        Networks networks = new Networks(SandboxTools.detect().tools(), new NetworkPolicy(List.of(), List.of(), Set.of()), dir);
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        CellNetwork network = networks.make("r1", port, List.of());
        try {
            assertThat(Pastas.of(dir)).hasSize(1);
            long pid = Pastas.of(dir).getFirst();
            assertThat(Files.readAllLines(Path.of("/proc", Long.toString(pid), "status")))
                    .as("the root pasta of before").anyMatch(l -> l.matches("Uid:\\s+0\\s+0\\s+0\\s+0"));
            assertThat(network.owner()).doesNotExist();
            assertThat(held(port)).as("its port is forwarded in").isTrue();
        } finally {
            networks.remove(network);
            networks.close();
            Files.deleteIfExists(dir);
            Files.deleteIfExists(closed);
        }
        assertThat(Pastas.of(dir)).isEmpty();
    }

    /**
     * A server killed without a clean stop leaves its ready networks' pastas running and its cgroups: the next
     * server of the machine sweeps them (its run dir's lock is free), and leaves a live server's alone.
     */
    @Test
    void whatAServerThatDiedLeftIsSweptByTheNextServerToStart() throws Exception {
        SandboxTools tools = SandboxTools.detect().tools();
        String node = "dead" + UUID.randomUUID().toString().substring(0, 8);
        Path dead = runDir.getParent().resolve(node);
        Files.createDirectories(dead);
        new Networks(tools, new NetworkPolicy(List.of(), List.of(), Set.of()), dead).make("w1", 0, List.of());
        tools.cgroups().create(node + ".app", limits());
        assertThat(Pastas.of(dead)).as("the dead server's pasta").hasSize(1);

        String next = "wn" + UUID.randomUUID().toString().substring(0, 8);
        Sandbox starting = new Sandbox(tools, new Identities(database.jdbi()),
                new NetworkPolicy(List.of(), List.of(), Set.of()), runDir.getParent().resolve(next), next, 0);
        try {
            starting.sweep();
        } finally {
            starting.close();
        }
        assertThat(Pastas.of(dead)).as("the dead server's pastas after the next start").isEmpty();
        assertThat(dead).doesNotExist();
        assertThat(tools.cgroups().existing()).noneMatch(name -> name.startsWith(node + "."));
        assertThat(runDir).as("a live server's run dir").exists();
        Await.until(Duration.ofSeconds(10), "a live server's ready networks", () -> !Pastas.of(runDir).isEmpty());
    }

    /**
     * The way in is a veth pair of the cell's own: the host's connections to its loopback port go down it (the host
     * end's counters move), and reach the app from loopback's address, as through pasta. The app cannot use the pair:
     * not to its host end (where the host's services listen on every address), not to another cell's address; once
     * released, the pair, its record and its port's mapping are gone.
     */
    @Test
    void anAppIsReachedDownAVethPairOfItsOwnWhichItCannotUse() throws Exception {
        int port = reserve();
        Confined app = sandbox.start(app("wn-veth-1", port, Map.of()));
        int other = reserve();
        Confined neighbour = sandbox.start(app("wn-veth-2", other, Map.of()));
        Path record;
        String slot;
        try {
            Await.value(Duration.ofSeconds(10), "the app to answer", () -> get(port, "/"));
            Await.value(Duration.ofSeconds(10), "the other app to answer", () -> get(other, "/"));
            record = vethRecord(port);
            slot = Files.readString(record).strip().split(" ")[0];
            Path link = Path.of("/sys/class/net", Veths.HOST_PREFIX + slot);
            assertThat(link).as("the pair's host end").exists();
            String cellAddress = mapped(port);
            assertThat(SandboxSettings.CELL_NETWORK.contains(java.net.InetAddress.getByName(cellAddress)))
                    .as("the cell's address " + cellAddress).isTrue();
            // a mapping ends by itself unless its server renews it: one left by a server that died sends nothing nowhere
            long expires = expiresMillis(port);
            assertThat(expires).as("the mapping's time left").isPositive().isLessThanOrEqualTo(Veths.MAPPED_FOR.toMillis());
            Await.until(Veths.RENEW_EVERY.multipliedBy(2), "the server to renew the mapping", () -> expiresMillis(port) > expires);
            long before = Long.parseLong(Files.readString(link.resolve("statistics/rx_bytes")).strip());
            assertThat(get(port, "/peer")).as("where the app sees its requests come from").isIn("127.0.0.1", "::ffff:127.0.0.1");
            long after = Long.parseLong(Files.readString(link.resolve("statistics/rx_bytes")).strip());
            assertThat(after - before).as("bytes the app sent up its pair for one request").isPositive();

            String hostEnd = WarmNetworksTest.next(cellAddress, -1);
            // a platform service listening on every address of the host, reached by the pair's host end
            try (ServerSocket everywhere = new ServerSocket(0)) {
                assertThat(get(port, "/probe?port=" + everywhere.getLocalPort() + "&host=" + hostEnd))
                        .as("the pair's host end").isEqualTo("ECONNREFUSED");
            }
            String neighbourAddress = mapped(other);
            assertThat(neighbourAddress).isNotEqualTo(cellAddress);
            assertThat(get(port, "/probe?port=" + other + "&host=" + neighbourAddress)).as("another cell's address").isEqualTo("ECONNREFUSED");
        } finally {
            neighbour.release();
            app.release();
        }
        assertThat(record).as("the pair's record, released").doesNotExist();
        assertThat(Path.of("/sys/class/net", Veths.HOST_PREFIX + slot)).as("the pair, released").doesNotExist();
        assertThat(mappedOrNull(port)).as("the port's mapping, released").isNull();
    }

    /** The address after {@code address} (the cell end of the pair whose host end it is). */
    static String next(String address) {
        return next(address, 1);
    }

    private static String next(String address, int by) {
        int last = address.lastIndexOf('.') + 1;
        return address.substring(0, last) + (Integer.parseInt(address.substring(last)) + by);
    }

    static boolean inCellNetwork(String address) {
        try {
            return SandboxSettings.CELL_NETWORK.contains(java.net.InetAddress.getByName(address));
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }

    /** Without {@code ip} (iproute2) no pair is made: the way in is the cell's pasta, and the start-up line says why. */
    @Test
    void withoutIpTheWayInIsThePastasAndTheServerSaysSo() throws Exception {
        SandboxTools t = SandboxTools.detect().tools();
        SandboxTools noIp = new SandboxTools(t.bwrap(), t.pasta(), t.nft(), t.setpriv(), t.nsenter(), t.unshare(), t.mount(), t.umount(),
                t.setsid(), t.truth(), t.sh(), t.nice(), t.renice(), t.mknod(), t.cgroups(), t.tunDevice(), null, t.cellNetwork());
        Path dir = runDir.getParent().resolve("noip" + UUID.randomUUID().toString().substring(0, 8));
        Networks networks = new Networks(noIp, new NetworkPolicy(List.of(), List.of(), Set.of()), dir);
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        CellNetwork network = networks.make("n1", port, List.of());
        try {
            assertThat(networks.inbound()).isEqualTo("through pastas, as veth pairs cannot be made here: no `ip` (apt-get install iproute2)");
            assertThat(network.veth()).as("a pair's record").doesNotExist();
            assertThat(mappedOrNull(port)).as("a mapping of its port").isNull();
            assertThat(connects(port)).as("its pasta takes the port's connections").isTrue();
        } finally {
            networks.remove(network);
            networks.close();
            Files.deleteIfExists(dir.resolve("pasta-resolv.conf"));
            Files.deleteIfExists(dir);
        }
    }

    /** The record of the veth pair that serves {@code port}. */
    private static Path vethRecord(int port) throws IOException {
        try (var files = Files.list(runDir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(CellNetwork.VETH)).filter(p -> {
                try {
                    return Files.readString(p).strip().endsWith(" " + port);
                } catch (IOException gone) {
                    return false;
                }
            }).findFirst().orElseThrow(() -> new AssertionError("no veth record for port " + port + " in " + runDir));
        }
    }

    /** The cell address the host's table maps {@code port} to. */
    private static String mapped(int port) throws Exception {
        String address = mappedOrNull(port);
        assertThat(address).as("the mapping of port " + port).isNotNull();
        return address;
    }

    /** How long the mapping of {@code port} has left ({@code expires 29s984ms}). */
    private static long expiresMillis(int port) {
        String out = element(port);
        var m = java.util.regex.Pattern.compile("expires (?:(\\d+)m)?(?:(\\d+)s)?(?:(\\d+)ms)?").matcher(out);
        assertThat(m.find()).as(out).isTrue();
        long total = 0;
        if (m.group(1) != null) total += Long.parseLong(m.group(1)) * 60_000;
        if (m.group(2) != null) total += Long.parseLong(m.group(2)) * 1000;
        if (m.group(3) != null) total += Long.parseLong(m.group(3));
        return total;
    }

    private static String mappedOrNull(int port) throws Exception {
        String out = element(port);
        if (out.contains("Error:")) return null;
        var m = java.util.regex.Pattern.compile(port + " [^:,}]*: ([0-9.]+)").matcher(out);
        return m.find() ? m.group(1) : null;
    }

    /** What nft says of the port's element, or its error ({@link ToolRun} reads again when another nft interrupted it). */
    private static String element(int port) {
        try {
            return ToolRun.run(List.of("nft", "get element ip slipway_veths ports { " + port + " }"), null);
        } catch (IOException e) {
            return "Error: " + e.getMessage();
        }
    }

    private static int reserve() {
        return Await.value(Duration.ofSeconds(10), "a ready open network", () -> {
            var port = sandbox.reservePort();
            return port.isPresent() ? port.getAsInt() : null;
        });
    }

    @Test
    void anAppsCellStartsWithTwiceItsCpuUntilItsStartIsOverAndABuildStepWithItsOwn() throws Exception {
        int port = reserve();
        Confined app = sandbox.start(app("wn-boost-1", port, Map.of()));
        try {
            assertThat(cpuMillis("wn-boost-1")).as("while it starts").isEqualTo(Math.max(500, Math.min(1000, Cgroups.CORES * 1000)));
            Await.value(Duration.ofSeconds(10), "the app to answer", () -> get(port, "/"));
            app.settle();
            assertThat(cpuMillis("wn-boost-1")).as("once its start is over").isEqualTo(500);
            app.settle();
            assertThat(cpuMillis("wn-boost-1")).isEqualTo(500);
        } finally {
            app.release();
        }
        String step = Sandbox.BUILD_PREFIX + "wn-boost-2";
        Confined build = sandbox.start(new Cell(step, "prj_wn_boost", List.of("/usr/bin/true"), workDir, Map.of("PATH", "/usr/bin"),
                List.of(workDir), List.of(), List.of(), limits(), 0, false, null, true));
        try {
            assertThat(cpuMillis(step)).as("a build step: its own quota from the start").isEqualTo(500);
            assertThat(build.process().waitFor()).isZero();
        } finally {
            build.release();
        }
    }

    @Test
    void theNextNetworkWaitsForTheAppThatTookTheReadyOneToAnswer() throws Exception {
        Await.until(Duration.ofSeconds(30), "a ready open network", () -> sandbox.readyNetworks()[0] >= 1);
        long reserved = System.nanoTime();
        int port = reserve();
        Confined held = sandbox.start(app("wn-quiet-1", port, Map.of()));
        try {
            // its start never ends here (no settle): the next network is made once the quiet is over
            Await.until(Duration.ofSeconds(30), "the next ready network", () -> sandbox.readyNetworks()[0] >= 1);
            assertThat(Duration.ofNanos(System.nanoTime() - reserved)).isGreaterThanOrEqualTo(WarmNetworks.QUIET_WHILE_STARTING);
        } finally {
            held.release();
        }
        int next = reserve();
        assertThat(sandbox.quietForStart()).as("an app about to start in a ready network").isTrue();
        Confined answered = sandbox.start(app("wn-quiet-2", next, Map.of()));
        try {
            Await.value(Duration.ofSeconds(10), "the app to answer", () -> get(next, "/"));
            answered.settle();
            assertThat(sandbox.quietForStart()).as("its start is over").isFalse();
            // made now, not after the quiet: and the filler is idle again when this class closes the sandbox
            Await.until(Duration.ofSeconds(30), "the next ready network", () -> sandbox.readyNetworks()[0] >= 1);
        } finally {
            answered.release();
        }
    }

    /** The CPU quota of the cell's group, in thousandths of a core. */
    private static long cpuMillis(String cell) throws IOException {
        Cgroups cgroups = Cgroups.detect().orElseThrow();
        String group = scope + "." + cell;
        return switch (cgroups) {
            case Cgroups.V1 v1 -> Long.parseLong(Files.readString(v1.cpu().resolve(Cgroups.PARENT).resolve(group)
                    .resolve("cpu.cfs_quota_us")).strip()) / 100;
            case Cgroups.V2 v2 -> Long.parseLong(Files.readString(v2.root().resolve(Cgroups.PARENT).resolve(group)
                    .resolve("cpu.max")).strip().split(" ")[0]) / 100;
        };
    }

    private static Cell app(String name, int port, Map<String, String> env) {
        return app(name, port, env, null);
    }

    /** @param database the project's database as the platform recorded it */
    private static Cell app(String name, int port, Map<String, String> env, DatabaseEndpoint database) {
        var all = new HashMap<>(env);
        all.put("PATH", "/usr/bin");
        all.put("PORT", Integer.toString(port));
        return new Cell(name, "prj_" + name.replace('-', '_'), List.of("/usr/bin/node", "app.js"), workDir, all,
                List.of(workDir), List.of(), List.of(), limits(), port, true, database);
    }

    private static Limits limits() {
        return new Limits(256 * Limits.MB, 500, 64, 16 * Limits.MB);
    }

    /** The namespaces of the networks ready now, by the inode their handles are mounted from. */
    private static Set<Long> readyNamespaces() throws IOException {
        Set<Long> out = new HashSet<>();
        try (var files = Files.list(runDir)) {
            for (Path p : files.toList()) {
                if (p.getFileName().toString().matches("w[0-9a-z]+-\\d+\\.net")) out.add(((Number) Files.getAttribute(p, "unix:ino")).longValue());
            }
        }
        return out;
    }

    /** {@code net:[4026532001]} → 4026532001 */
    private static long inode(String link) {
        assertThat(link).matches("net:\\[\\d+]");
        return Long.parseLong(link.substring(5, link.length() - 1));
    }

    private static long ownNamespace() throws IOException {
        return inode(Files.readSymbolicLink(Path.of("/proc/self/ns/net")).toString());
    }

    private static String get(int port, String path) {
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? r.body() : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Whether a process of the host holds the loopback port (a cell's pasta does, for the cell). */
    private static boolean held(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress())) {
            return false;
        } catch (IOException taken) {
            return true;
        }
    }

    private static boolean connects(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
