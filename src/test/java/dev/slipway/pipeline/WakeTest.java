package dev.slipway.pipeline;

import dev.slipway.store.Dialect;
import dev.slipway.testing.Apps;
import dev.slipway.testing.Await;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.GitServer;
import dev.slipway.testing.Http;
import dev.slipway.testing.JavaProcess;
import dev.slipway.testing.TestStore;
import java.io.DataInputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.LinkedHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Wake-on-request, against the server as a separate process with a 1 s retire window: a replaced
 * deployment's process is stopped, then a request to its own URL starts its artifact again (one start
 * for many concurrent requests), it is retired again, a restarted server wakes it too, and a deployment
 * whose build was pruned keeps the 502 page.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.slipway.testing.TestStore#kinds")
@EndToEnd
class WakeTest {
    private static final String DEPLOYMENT_MARKER = "SLIPWAY_DEPLOYMENT_ID"; // runtime.local.LaunchCommand
    private static final Pattern WOKEN = Pattern.compile("info Woken by a request; started in (\\d+) ms");
    private static final int CONCURRENT = 12;

    @Parameter
    Dialect kind;

    ProcessHarness harness;
    GitServer git;
    TestStore store;
    JavaProcess server;
    Runs runs;

    @BeforeEach
    void setUp() {
        harness = new ProcessHarness(kind, Map.of("SLIPWAY_HEALTH_TIMEOUT_SECONDS", "15", "SLIPWAY_RETIRE_AFTER_SECONDS", "1"));
        git = harness.git;
        store = harness.store;
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        harness.close();
    }

    private void startServer() {
        server = harness.start();
        runs = new Runs(harness.http());
    }

    private static Set<Long> appProcesses(String deploymentId) {
        return new HashSet<>(Runs.processesWithEnv(DEPLOYMENT_MARKER, deploymentId));
    }

    private void awaitDormant(String deploymentId) {
        try {
            Await.until(Duration.ofSeconds(30), "the process of " + deploymentId + " to be stopped",
                    () -> appProcesses(deploymentId).isEmpty());
        } catch (AssertionError e) {
            // the server's own account of the retirement is what tells a stop never scheduled from one that failed, and its
            // threads where a stop is held up
            String log = server.output();
            throw new AssertionError(e.getMessage() + "\nthe deployment's log:\n" + String.join("\n", runs.messages("deployments", deploymentId))
                    + "\nthe server's output:\n" + log.substring(Math.max(0, log.length() - 20_000))
                    + "\nthe server's threads:\n" + threads(server.pid()), e);
        }
    }

    /** Every thread of the JVM, virtual ones too (a retirement's stop runs on one). */
    private static String threads(long pid) {
        try {
            Path dump = Files.createTempFile("wake-threads-", ".txt");
            Files.delete(dump); // jcmd makes it
            Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(), Long.toString(pid),
                    "Thread.dump_to_file", dump.toString()).redirectErrorStream(true).start();
            String out = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            jcmd.waitFor();
            String threads = Files.exists(dump) ? Files.readString(dump) : out;
            Files.deleteIfExists(dump);
            return threads;
        } catch (Exception e) {
            return "(no thread dump: " + e + ")";
        }
    }

    private List<Long> wakeTimes(String deploymentId) {
        List<Long> out = new ArrayList<>();
        for (String m : runs.messages("deployments", deploymentId)) {
            Matcher w = WOKEN.matcher(m);
            if (w.matches()) out.add(Long.parseLong(w.group(1)));
        }
        return out;
    }

    /** The build directory a deployment's running process works in. */
    private static Path buildOf(String deploymentId) throws Exception {
        long pid = appProcesses(deploymentId).stream().min(Long::compare).orElseThrow();
        return Files.readSymbolicLink(Path.of("/proc/" + pid + "/cwd"));
    }

    private long startLines(String deploymentId) {
        return runs.messages("deployments", deploymentId).stream().filter(m -> m.startsWith("info Starting ")).count();
    }

    /** GET through the apps listener, with the time to the whole (small) answer. */
    private static Http.Response timedGet(String url, long[] millis) {
        long t0 = System.nanoTime();
        Http.Response r = Apps.get(url);
        millis[0] = (System.nanoTime() - t0) / 1_000_000;
        return r;
    }

    /** The version app, which also accepts a WebSocket upgrade and says {@code ws:<version>} first. */
    static Map<String, String> app(String version) {
        Map<String, String> files = NodeApp.version(version);
        files.put("server.js", """
                const http = require("http");
                const crypto = require("crypto");
                const version = require("fs").readFileSync(__dirname + "/VERSION", "utf8").trim();
                const server = http.createServer((req, res) => res.end("app:" + version));
                server.on("upgrade", (req, socket) => {
                  const accept = crypto.createHash("sha1")
                    .update(req.headers["sec-websocket-key"] + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest("base64");
                  socket.write("HTTP/1.1 101 Switching Protocols\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\n"
                    + "Sec-WebSocket-Accept: " + accept + "\\r\\n\\r\\n");
                  const hello = Buffer.from("ws:" + version);
                  socket.write(Buffer.concat([Buffer.from([0x81, hello.length]), hello]));
                  socket.on("data", () => {});
                  socket.on("error", () => {});
                });
                server.listen(Number(process.env.PORT), "127.0.0.1", () => console.log("listening"));
                """);
        return files;
    }

    /** A WebSocket handshake to the address through the apps listener; the first text frame the app sends. */
    private static String webSocketHello(String url) throws Exception {
        URI u = URI.create(url);
        try (Socket socket = new Socket("127.0.0.1", u.getPort())) {
            socket.setSoTimeout(20_000);
            var out = socket.getOutputStream();
            out.write(("GET /live HTTP/1.1\r\nHost: " + u.getHost() + ":" + u.getPort() + "\r\nUpgrade: websocket\r\n"
                    + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            var in = new DataInputStream(socket.getInputStream());
            StringBuilder head = new StringBuilder();
            while (!head.toString().endsWith("\r\n\r\n")) head.append((char) in.readUnsignedByte());
            assertThat(head.toString()).as("the handshake answer").startsWith("HTTP/1.1 101");
            int opcode = in.readUnsignedByte() & 0x0f;
            int length = in.readUnsignedByte() & 0x7f;
            assertThat(opcode).as("a text frame").isEqualTo(1);
            byte[] payload = in.readNBytes(length);
            return new String(payload, StandardCharsets.UTF_8);
        }
    }

    @Test
    void aRetiredDeploymentIsWokenByItsUrlOnceEvenAfterARestart() throws Exception {
        String repo = "acme/wake-" + kind.name().toLowerCase();
        git.createRepo(repo);
        git.commit(repo, "main", app("v1"), "v1");
        startServer();
        String migration = runs.migrate(repo);
        runs.awaitMigration(migration, "complete");
        String project = runs.projectOf(migration);
        String v1 = runs.firstDeployment(project);
        final String firstUrl = runs.deployment(v1).get("url").asText();
        String v1Url = firstUrl;
        assertThat(Apps.get(v1Url).body()).startsWith("app:v1");

        git.commit(repo, "main", app("v2"), "v2");
        String v2 = runs.deploy(project);
        runs.awaitDeployment(v2, "live");
        String productionUrl = runs.http().get("/v1/projects/" + project).json().at("/data/url").asText();
        assertThat(Apps.get(productionUrl).body()).startsWith("app:v2");
        awaitDormant(v1);
        assertThat(runs.deployment(v1).get("status").asText()).isEqualTo("live");
        long startsBefore = startLines(v1);

        // many first requests at once: one start, every one answered by v1
        List<Http.Response> answers = new ArrayList<>();
        long[] first = new long[1];
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Http.Response>> futures = new ArrayList<>();
            for (int i = 0; i < CONCURRENT; i++) {
                Callable<Http.Response> call = i == 0 ? () -> timedGet(firstUrl, first) : () -> Apps.get(firstUrl);
                futures.add(clients.submit(call));
            }
            for (Future<Http.Response> f : futures) answers.add(f.get());
        }
        // looked for at once: with the test's 1 s retire window the woken process goes again soon after its last answer
        Set<Long> woken = appProcesses(v1);
        assertThat(answers).allSatisfy(r -> {
            assertThat(r.status()).as(r.body()).isEqualTo(200);
            assertThat(r.body()).startsWith("app:v1");
        });
        assertThat(Apps.get(productionUrl).body()).as("production is untouched").startsWith("app:v2");
        assertThat(wakeTimes(v1)).as("wake log lines").hasSize(1);
        assertThat(startLines(v1) - startsBefore).as("app starts").isEqualTo(1);
        assertThat(woken).isNotEmpty();
        System.out.println("WAKE-LATENCY " + kind + " first request " + first[0] + " ms, log " + wakeTimes(v1));

        // a woken non-production deployment is retired again, and a WebSocket upgrade wakes it again
        awaitDormant(v1);
        long t0 = System.nanoTime();
        assertThat(webSocketHello(v1Url)).isEqualTo("ws:v1");
        long second = (System.nanoTime() - t0) / 1_000_000;
        assertThat(wakeTimes(v1)).hasSize(2);
        System.out.println("WAKE-LATENCY " + kind + " second wake (websocket upgrade) " + second + " ms, log " + wakeTimes(v1));

        // a restarted server (the deployment dormant across it) wakes it too; production was recovered
        awaitDormant(v1);
        server.process().toHandle().destroy();
        assertThat(server.waitForExit(Duration.ofSeconds(60))).isEqualTo(143);
        server.close();
        startServer();
        // the apps listener has a new port: read the addresses again
        String productionAgain = runs.http().get("/v1/projects/" + project).json().at("/data/url").asText();
        v1Url = runs.deployment(v1).get("url").asText();
        Await.until(Duration.ofSeconds(30), "production to answer after the restart",
                () -> Apps.get(productionAgain).body().startsWith("app:v2"));
        assertThat(appProcesses(v1)).isEmpty();
        long[] third = new long[1];
        Http.Response afterRestart = timedGet(v1Url, third);
        assertThat(afterRestart.status()).as(afterRestart.body()).isEqualTo(200);
        assertThat(afterRestart.body()).startsWith("app:v1");
        assertThat(wakeTimes(v1)).hasSize(3);
        System.out.println("WAKE-LATENCY " + kind + " after restart " + third[0] + " ms, log " + wakeTimes(v1));

        // a rollback to the woken deployment: production stays up after the wake's retirement was due
        // (v2 is retired by the rollback, after the wake retired v1: once v2 is gone, v1's time had come too)
        String v2Url = runs.deployment(v2).get("url").asText();
        Path v2Build = buildOf(v2);
        var rollback = runs.http().send("POST", "/v1/deployments/" + v1 + "/rollback", null, null);
        assertThat(rollback.status()).as(rollback.body()).isEqualTo(201);
        String back = rollback.json().at("/data/id").asText();
        runs.awaitDeployment(back, "live");
        assertThat(Apps.get(productionAgain).body()).as("live once the edge serves it").startsWith("app:v1");
        awaitDormant(v2);
        Http.Response stillUp = Apps.get(productionAgain);
        assertThat(stillUp.status()).as(stillUp.body()).isEqualTo(200);
        assertThat(stillUp.body()).startsWith("app:v1");
        assertThat(appProcesses(v1).size() + appProcesses(back).size()).as("processes serving production").isPositive();

        // a build pruned (v2, rolled back and retired): the documented 502 page, and nothing is started
        assertThat(runs.deployment(v2).get("status").asText()).isEqualTo("rolled_back");
        assertThat(v2Build.toString()).contains("artifacts");
        try (var files = Files.walk(v2Build)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        Http.Response pruned = Apps.get(v2Url);
        assertThat(pruned.status()).as(pruned.body()).isEqualTo(502);
        assertThat(pruned.body()).contains("not responding");
        assertThat(appProcesses(v2)).isEmpty();
        assertThat(wakeTimes(v2)).isEmpty();
        // an address of no deployment stays a 404
        Http.Response unknown = Apps.get(v1Url.replace(v1.substring(v1.length() - 8), "zzzzzzzz"));
        assertThat(unknown.status()).isEqualTo(404);
    }

    /** A react-vite site whose build writes dist/ itself (no packages to fetch). */
    static Map<String, String> site(String version) {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("package.json", """
                {"name": "site", "version": "1.0.0", "private": true,
                 "scripts": {"build": "node build.js"}}
                """);
        files.put("build.js", """
                const fs = require("fs");
                fs.mkdirSync("dist", { recursive: true });
                fs.writeFileSync("dist/index.html", "<!doctype html><title>site:%s</title><div id=root>site:%s</div>");
                """.formatted(version, version));
        return files;
    }

    @Test
    void aRolledBackStaticSiteIsServedAfterARestartWithoutAProcess() throws Exception {
        String repo = "acme/wake-site-" + kind.name().toLowerCase();
        git.createRepo(repo);
        git.commit(repo, "main", site("s1"), "s1");
        startServer();
        var created = runs.http().post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"" + repo
                + "\",\"framework\":\"react-vite\"}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        String migration = created.json().at("/data/id").asText();
        runs.awaitMigration(migration, "complete");
        String project = runs.projectOf(migration);
        String s1 = runs.firstDeployment(project);
        git.commit(repo, "main", site("s2"), "s2");
        String s2 = runs.deploy(project);
        runs.awaitDeployment(s2, "live");
        var rollback = runs.http().send("POST", "/v1/deployments/" + s1 + "/rollback", null, null);
        assertThat(rollback.status()).as(rollback.body()).isEqualTo(201);
        runs.awaitDeployment(rollback.json().at("/data/id").asText(), "live");
        Await.until(Duration.ofSeconds(30), s2 + " to be rolled_back",
                () -> runs.deployment(s2).get("status").asText().equals("rolled_back"));

        // after a restart only live deployments and production are routed; the rolled-back site is woken
        server.process().toHandle().destroy();
        assertThat(server.waitForExit(Duration.ofSeconds(60))).isEqualTo(143);
        server.close();
        startServer();
        String s2Url = runs.deployment(s2).get("url").asText();
        Http.Response page = Apps.get(s2Url + "/some/route");
        assertThat(page.status()).as(page.body()).isEqualTo(200);
        assertThat(page.body()).contains("site:s2");
        assertThat(wakeTimes(s2)).as("no process to start").isEmpty();
        assertThat(appProcesses(s2)).isEmpty();
        String production = runs.http().get("/v1/projects/" + project).json().at("/data/url").asText();
        assertThat(Apps.get(production).body()).contains("site:s1");
    }
}
