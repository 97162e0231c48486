package dev.slipway.pipeline;

import dev.slipway.store.Dialect;
import dev.slipway.testing.Alone;
import dev.slipway.testing.Apps;
import dev.slipway.testing.Await;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.JavaProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an operator's upgrade and a crash of the server cost an app: the server as a separate process (in the sandbox
 * where this machine has one, its apps behind the edge process) is stopped with SIGTERM and started again, then killed
 * with SIGKILL and started again, while a client keeps calling the app through the edge: no request fails. The app
 * keeps its process and its memory through both, answers on its own
 * port while no server runs, and each new server adopts it and its worker. A cell that died while the server was away is
 * started again.
 */
@Alone
@ParameterizedClass(name = "{0}")
@MethodSource("dev.slipway.testing.TestStore#kinds")
@EndToEnd
class UpgradeDrillTest {
    private static final String DEPLOYMENT_MARKER = "SLIPWAY_DEPLOYMENT_ID"; // runtime.local.LaunchCommand
    private static final Map<String, String> LEAVE_APPS = Map.of("SLIPWAY_STOP_APPS_WITH_SERVER", "false");

    @Parameter
    Dialect kind;

    ProcessHarness harness;
    JavaProcess server;
    Runs runs;
    Http http;

    @BeforeEach
    void setUp() {
        harness = new ProcessHarness(kind, Map.of("SLIPWAY_HEALTH_TIMEOUT_SECONDS", "30"));
        harness.keepAppsPort();
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        harness.close();
    }

    private void start(Map<String, String> settings) {
        server = harness.start(settings);
        http = harness.http();
        runs = new Runs(http);
    }

    @Test
    void appsKeepTheirProcessAndMemoryThroughAStopAKillAndTheRestarts() throws Exception {
        String repo = "acme/drill-" + kind.name().toLowerCase();
        harness.git.createRepo(repo);
        harness.git.commit(repo, "main", counterFiles(), "a counter");
        start(LEAVE_APPS);
        String migration = runs.migrate(repo);
        runs.awaitMigration(migration, "complete");
        String project = runs.projectOf(migration);
        String deployment = runs.firstDeployment(project);
        String url = http.get("/v1/projects/" + project).json().at("/data/url").asText();
        Set<Long> processes = Await.value(Duration.ofSeconds(30), "the app and its worker to run", () -> {
            Set<Long> both = appProcesses(deployment);
            return both.stream().anyMatch(UpgradeDrillTest::isWorker) && both.size() >= 2 ? both : null;
        });
        int port = portOf(processes);
        assertThat(Apps.get(url + "/count").body()).isEqualTo("1");
        WebSocket socket = WebSocket.open(url);
        assertThat(socket.call("open")).isEqualTo("2:open");
        Apps.get(url + "/say/before-the-restarts");
        Await.until(Duration.ofSeconds(20), "the app's output to reach its deployment log",
                () -> logged(deployment, "before-the-restarts"));

        // an upgrade: SIGTERM, then the next server starts
        Load load = Load.start(url + "/hello");
        server.process().toHandle().destroy();
        assertThat(server.waitForExit(Duration.ofSeconds(60))).isEqualTo(143);
        assertThat(direct(port, "/count")).as("the app serves on its own port while no server runs").isEqualTo("3");
        assertThat(socket.call("alone")).as("its WebSocket stays open while no server runs").isEqualTo("4:alone");
        start(LEAVE_APPS);
        Await.until(Duration.ofSeconds(30), "the app to answer through the new server", () -> "5".equals(Apps.get(url + "/count").body()));
        assertThat(socket.call("upgraded")).as("its WebSocket stays open through the upgrade").isEqualTo("6:upgraded");
        assertThat(appProcesses(deployment)).as("adopted, not restarted").isEqualTo(processes);
        Load.Result upgrade = load.stop();
        System.out.println("[measure] " + kind + " SIGTERM + start: " + upgrade);
        assertThat(upgrade.failed()).as("requests failed while the server was upgraded: %s", upgrade).isZero();
        assertThat(server.output()).doesNotContain("starting the app again");

        // a crash: SIGKILL, then the next server starts
        load = Load.start(url + "/hello");
        server.process().destroyForcibly();
        assertThat(server.waitForExit(Duration.ofSeconds(30))).isEqualTo(137);
        assertThat(direct(port, "/count")).as("the app serves on its own port while no server runs").isEqualTo("7");
        // an address the edge has no route for waits for no server: a 503 to retry soon
        var unknown = Apps.get(url.replaceFirst("://[^.]+\\.", "://no-such-app.") + "/");
        assertThat(unknown.status()).as(unknown.body()).isEqualTo(503);
        assertThat(unknown.headers()).containsKey("retry-after");
        start(LEAVE_APPS);
        Await.until(Duration.ofSeconds(30), "the app to answer through the new server", () -> "8".equals(Apps.get(url + "/count").body()));
        assertThat(socket.call("crashed")).as("its WebSocket stays open through a crash of the server").isEqualTo("9:crashed");
        socket.close();
        assertThat(appProcesses(deployment)).as("adopted, not restarted").isEqualTo(processes);
        Load.Result crash = load.stop();
        System.out.println("[measure] " + kind + " SIGKILL + start: " + crash);
        assertThat(crash.failed()).as("requests failed while the server was killed and started: %s", crash).isZero();
        // it is the live deployment still, and logs what it prints to the new server
        assertThat(runs.deployment(deployment).get("status").asText()).isEqualTo("live");
        Apps.get(url + "/say/after-two-restarts");
        Await.until(Duration.ofSeconds(20), "the app's output to reach its deployment log",
                () -> logged(deployment, "after-two-restarts"));

        // an adopted app that exits is told with its exit code, though this server is not its parent: its sandbox
        // recorded it (an unconfined process's code is unknown)
        Apps.get(url + "/exit/3");
        boolean sandboxed = "sandbox".equals(http.get("/healthz").json().path("isolation").asText());
        Await.until(Duration.ofSeconds(30), "the adopted app's exit in its log",
                () -> loggedContaining(deployment, sandboxed ? "App crashed: exited with code 3 after" : "App crashed: exited after"));
        System.out.println("[measure] " + kind + " an adopted app's exit is logged " + (sandboxed ? "with its code 3" : "without a code (unconfined)"));
        Await.until(Duration.ofSeconds(60), "the app to be started again after its exit", () -> "1".equals(Apps.get(url + "/count").body()));

        // an app that dies while no server runs is started again by the next one (stopped with it at the end)
        Set<Long> last = appProcesses(deployment);
        server.process().destroyForcibly();
        assertThat(server.waitForExit(Duration.ofSeconds(30))).isEqualTo(137);
        for (long pid : last) ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        Await.until(Duration.ofSeconds(10), "the app's processes to be gone", () -> appProcesses(deployment).isEmpty());
        start(Map.of());
        Await.until(Duration.ofSeconds(60), "the app to be started again", () -> "1".equals(Apps.get(url + "/count").body()));
        Set<Long> now = appProcesses(deployment);
        assertThat(now).isNotEmpty().doesNotContainAnyElementsOf(last).doesNotContainAnyElementsOf(processes);
    }

    private static Map<String, String> counterFiles() {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("package.json", """
                {"name": "counter", "version": "1.0.0", "private": true, "scripts": {"start": "node server.js"}}
                """);
        files.put("Procfile", "web: node server.js\nworker: node worker.js\n");
        files.put("worker.js", "console.log('worker up'); setInterval(() => {}, 1000);\n");
        files.put("server.js", """
                const http = require("http");
                const crypto = require("crypto");
                let count = 0;
                const server = http.createServer((req, res) => {
                  const url = new URL(req.url, "http://x");
                  if (url.pathname === "/count") return res.end(String(++count));
                  if (url.pathname.startsWith("/exit/")) { res.end("bye"); return setTimeout(() => process.exit(Number(url.pathname.slice(6))), 50); }
                  if (url.pathname.startsWith("/say/")) { console.log(url.pathname.slice(5)); return res.end("said"); }
                  res.end("hello");
                });
                // a WebSocket that answers each short text frame with the counter and the text
                server.on("upgrade", (req, socket) => {
                  const accept = crypto.createHash("sha1")
                    .update(req.headers["sec-websocket-key"] + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest("base64");
                  socket.write("HTTP/1.1 101 Switching Protocols\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\n"
                    + "Sec-WebSocket-Accept: " + accept + "\\r\\n\\r\\n");
                  socket.on("data", buf => {
                    if ((buf[0] & 0x0f) !== 1) return;
                    const len = buf[1] & 0x7f, mask = buf.subarray(2, 6), text = Buffer.alloc(len);
                    for (let i = 0; i < len; i++) text[i] = buf[6 + i] ^ mask[i % 4];
                    const reply = Buffer.from(++count + ":" + text.toString());
                    socket.write(Buffer.concat([Buffer.from([0x81, reply.length]), reply]));
                  });
                  socket.on("error", () => {});
                });
                server.listen(Number(process.env.PORT), "127.0.0.1", () => console.log("listening"));
                """);
        return files;
    }

    /** Whether the deployment's log, read page by page, has an entry with this message. */
    private boolean logged(String deploymentId, String message) {
        return loggedWhere(deploymentId, message::equals);
    }

    private boolean loggedContaining(String deploymentId, String part) {
        return loggedWhere(deploymentId, m -> m.contains(part));
    }

    private boolean loggedWhere(String deploymentId, java.util.function.Predicate<String> message) {
        String cursor = null;
        while (true) {
            var page = http.get("/v1/deployments/" + deploymentId + "/logs?limit=100" + (cursor == null ? "" : "&after=" + cursor)).json();
            for (var e : page.at("/data/logs")) if (message.test(e.get("message").asText())) return true;
            if (!page.at("/pagination/has_more").asBoolean()) return false;
            cursor = page.at("/pagination/next_cursor").asText();
        }
    }

    private static boolean isWorker(long pid) {
        return ProcessHandle.of(pid).flatMap(h -> h.info().arguments()).map(a -> String.join(" ", a).contains("worker.js"))
                .orElse(false);
    }

    private static Set<Long> appProcesses(String deploymentId) {
        return new HashSet<>(Runs.processesWithEnv(DEPLOYMENT_MARKER, deploymentId));
    }

    /** The port the app was given ($PORT): where it answers on loopback with no router in front. */
    private static int portOf(Set<Long> processes) throws IOException {
        for (long pid : processes) {
            for (String entry : new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "environ"))).split("\0")) {
                if (entry.startsWith("PORT=")) return Integer.parseInt(entry.substring("PORT=".length()));
            }
        }
        throw new AssertionError("no PORT in the environment of " + processes);
    }

    private static String direct(int port, String path) {
        return Apps.get("http://127.0.0.1:" + port + path).body();
    }

    /** A WebSocket to the app through the edge, as a raw socket: one short text frame out, one back. */
    private static final class WebSocket implements AutoCloseable {
        private final Socket socket;
        private final DataInputStream in;

        private WebSocket(Socket socket) throws IOException {
            this.socket = socket;
            this.in = new DataInputStream(socket.getInputStream());
        }

        static WebSocket open(String url) throws IOException {
            URI u = URI.create(url);
            Socket s = new Socket("127.0.0.1", u.getPort());
            s.setSoTimeout(20_000);
            s.getOutputStream().write(("GET /live HTTP/1.1\r\nHost: " + u.getHost() + ":" + u.getPort() + "\r\nUpgrade: websocket\r\n"
                    + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            WebSocket ws = new WebSocket(s);
            StringBuilder head = new StringBuilder();
            while (!head.toString().endsWith("\r\n\r\n")) head.append((char) ws.in.readUnsignedByte());
            assertThat(head.toString()).as("the handshake answer").startsWith("HTTP/1.1 101");
            return ws;
        }

        /** Sends {@code text} and returns the app's answer. */
        String call(String text) throws IOException {
            byte[] payload = text.getBytes(StandardCharsets.UTF_8);
            byte[] mask = {1, 2, 3, 4};
            byte[] frame = new byte[6 + payload.length];
            frame[0] = (byte) 0x81;
            frame[1] = (byte) (0x80 | payload.length);
            System.arraycopy(mask, 0, frame, 2, 4);
            for (int i = 0; i < payload.length; i++) frame[6 + i] = (byte) (payload[i] ^ mask[i % 4]);
            socket.getOutputStream().write(frame);
            socket.getOutputStream().flush();
            int opcode = in.readUnsignedByte() & 0x0f;
            int length = in.readUnsignedByte() & 0x7f;
            assertThat(opcode).as("a text frame").isEqualTo(1);
            return new String(in.readNBytes(length), StandardCharsets.UTF_8);
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    /** A client calling the app through the router every 20 ms: failed requests and the longest time without an answer. */
    private static final class Load {
        private final AtomicBoolean stop = new AtomicBoolean();
        private final AtomicInteger ok = new AtomicInteger();
        private final AtomicInteger failed = new AtomicInteger();
        private final AtomicLong longestGapNanos = new AtomicLong();
        private final Thread thread;

        private Load(String url) {
            thread = Thread.ofVirtual().start(() -> {
                long lastOk = System.nanoTime();
                while (!stop.get()) {
                    if (Apps.get(url).status() == 200) {
                        ok.incrementAndGet();
                        long now = System.nanoTime();
                        longestGapNanos.accumulateAndGet(now - lastOk, Math::max);
                        lastOk = now;
                    } else {
                        failed.incrementAndGet();
                    }
                    try {
                        Thread.sleep(20);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
        }

        static Load start(String url) {
            return new Load(url);
        }

        record Result(int answered, int failed, long longestGapMillis) {
            @Override
            public String toString() {
                return answered + " requests answered, " + failed + " failed, longest gap " + longestGapMillis + " ms";
            }
        }

        Result stop() throws InterruptedException {
            stop.set(true);
            thread.join(Duration.ofSeconds(15));
            return new Result(ok.get(), failed.get(), Duration.ofNanos(longestGapNanos.get()).toMillis());
        }
    }
}
