package dev.slipway.isolation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.slipway.store.Database;
import dev.slipway.store.Dialect;
import dev.slipway.testing.DnsServer;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Netns;
import dev.slipway.testing.TestStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A cell's own {@code /etc}: a passwd that knows its uid, and a resolv.conf naming pasta's DNS forwarder, through
 * which names resolve wherever the host's resolver is — on the host's loopback (systemd-resolved's 127.0.0.53,
 * which in the cell would be the cell's own loopback) or on a private address (a LAN's resolver), both closed to
 * the cell itself. The resolvers here are the test's own, on loopback and on a network the test makes.
 */
@EndToEnd
class CellEtcTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Resolves a name as any program does (getaddrinfo) and asks the resolver itself, and says what it got. */
    private static final String PROBE = """
            const dns = require('dns'), dgram = require('dgram'), fs = require('fs'), os = require('os');
            const [name, resolver] = process.argv.slice(2);
            const labels = Buffer.concat(name.split('.').map(l => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)])));
            const query = Buffer.concat([Buffer.from([0x12, 0x34, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0]), labels, Buffer.from([0, 0, 1, 0, 1])]);
            dns.lookup(name, { family: 4 }, (err, address) => {
              const s = dgram.createSocket(resolver.includes(':') ? 'udp6' : 'udp4');
              const done = direct => {
                s.close();
                console.log(JSON.stringify({ lookup: err ? 'error: ' + err.code : address, direct,
                  user: os.userInfo().username, resolvConf: fs.readFileSync('/etc/resolv.conf', 'utf8') }));
              };
              const timer = setTimeout(() => done('no answer'), 3000);
              s.on('message', () => { clearTimeout(timer); done('answered'); });
              s.on('error', e => { clearTimeout(timer); done('error: ' + e.code); });
              s.send(query, 53, resolver);
            });
            """;

    static TestStore store;
    static Database database;
    static Path workDir;

    @BeforeAll
    static void start() throws IOException {
        assertThat(SandboxTools.detect().missing()).as("the sandbox's tools (.ci/run installs them)").isEmpty();
        store = TestStore.create(Dialect.H2);
        database = Database.open(store.jdbcUrl(), 2);
        workDir = Files.createTempDirectory(Path.of("/var/tmp"), "slipway-etc-");
        Files.setPosixFilePermissions(workDir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.writeString(workDir.resolve("probe.js"), PROBE);
        Files.setPosixFilePermissions(workDir.resolve("probe.js"), PosixFilePermissions.fromString("rw-r--r--"));
    }

    @AfterAll
    static void stop() throws IOException {
        database.close();
        store.close();
        TestStore.deleteTree(workDir);
    }

    @Test
    void aNameResolvesWhenTheHostsResolverIsOnItsLoopback() throws Exception {
        var r = ThreadLocalRandom.current();
        InetAddress resolver = InetAddress.getByName("127." + r.nextInt(1, 250) + "." + r.nextInt(1, 250) + ".53");
        try (DnsServer dns = DnsServer.at(new InetSocketAddress(resolver, 53))) {
            dns.a("shop.cell-etc.test", "10.20.30.40");
            JsonNode got = probe(resolver, "shop.cell-etc.test");
            assertThat(got.get("lookup").asText()).as("the name, through pasta's forwarder").isEqualTo("10.20.30.40");
            assertThat(got.get("direct").asText()).as("the resolver itself: the cell's own loopback").isNotEqualTo("answered");
        }
    }

    @Test
    void aNameResolvesWhenTheHostsResolverIsOnAPrivateNetwork() throws Exception {
        int subnet = ThreadLocalRandom.current().nextInt(1, 250);
        InetAddress resolver = InetAddress.getByName("10.214." + subnet + ".1");
        try (Netns lan = Netns.create().addresses(resolver.getHostAddress() + "/24", "10.214." + subnet + ".2/24");
             DnsServer dns = DnsServer.at(new InetSocketAddress(resolver, 53))) {
            dns.a("shop.cell-etc.test", "10.20.30.41");
            JsonNode got = probe(resolver, "shop.cell-etc.test");
            assertThat(got.get("lookup").asText()).as("the name, through pasta's forwarder").isEqualTo("10.20.30.41");
            assertThat(got.get("direct").asText()).as("the resolver itself: a private address, closed").isNotEqualTo("answered");
        }
    }

    /** Runs the probe in a cell of a sandbox whose host resolver is {@code resolver}. */
    private static JsonNode probe(InetAddress resolver, String name) throws Exception {
        String scope = "etc" + UUID.randomUUID().toString().substring(0, 8);
        NetworkPolicy policy = new NetworkPolicy(List.of(), List.of(), Set.of(), List.of(), null, CellDns.of(List.of(resolver)));
        Sandbox sandbox = new Sandbox(SandboxTools.detect().tools(), new Identities(database.jdbi()), policy,
                Path.of("/run/slipway-test", scope), scope, 0);
        try {
            Confined cell = sandbox.start(new Cell(Sandbox.BUILD_PREFIX + scope, "prj_" + scope, List.of("/usr/bin/node", "probe.js",
                    name, resolver.getHostAddress()), workDir, Map.of("PATH", "/usr/bin"), List.of(workDir), List.of(), List.of(),
                    new Limits(256 * Limits.MB, 500, 64, 16 * Limits.MB), 0, false));
            try {
                String out = new String(cell.process().getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
                assertThat(cell.process().waitFor()).as(out).isZero();
                JsonNode got = JSON.readTree(out);
                assertThat(got.get("user").asText()).as("its uid's name, from its own passwd").isEqualTo("app");
                assertThat(got.get("resolvConf").asText()).as("its resolv.conf names the forwarder, not the host's resolver")
                        .contains("nameserver 169.254.0.53").doesNotContain(resolver.getHostAddress());
                return got;
            } finally {
                cell.release();
            }
        } finally {
            sandbox.close();
        }
    }
}
