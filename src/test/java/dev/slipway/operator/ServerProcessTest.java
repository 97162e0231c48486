package dev.slipway.operator;

import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.JavaProcess;
import dev.slipway.testing.TestStore;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** The server as an operator runs it: first start, SIGTERM, restart on the same data dir. */
@EndToEnd
class ServerProcessTest {
    private static final Pattern LISTENING = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)/v1");

    private static int port(JavaProcess server) {
        Matcher m = LISTENING.matcher(server.awaitLine(l -> LISTENING.matcher(l).find(), Duration.ofSeconds(60)));
        assertThat(m.find()).isTrue();
        return Integer.parseInt(m.group(1));
    }

    @Test
    void firstStartPrintsOneKeyOnceAndSigtermLosesNothing() throws Exception {
        Path dir = Files.createTempDirectory("slipway-proc-");
        try {
            Map<String, String> env = Map.of("SLIPWAY_DATA_DIR", dir.resolve("data").toString());
            String key;
            String projectId;
            try (JavaProcess first = JavaProcess.start(env, dir, "server", "--api-port", "0", "--apps-port", "0")) {
                int port = port(first);
                key = first.awaitLine(l -> l.trim().startsWith("sk_"), Duration.ofSeconds(5)).trim();
                assertThat(first.output()).contains("will not be shown again");
                String apps = first.awaitLine(l -> l.contains("(edge process "), Duration.ofSeconds(30));
                long edge = Long.parseLong(apps.replaceFirst(".*\\(edge process (\\d+).*", "$1"));
                if (Runtime.version().feature() >= 25) {
                    // the JDK's ProcessHandle.Info gives no arguments for a command line as long as this one
                    String cmdline = Files.readString(Path.of("/proc", Long.toString(edge), "cmdline"), StandardCharsets.ISO_8859_1);
                    assertThat(List.of(cmdline.split("\u0000")))
                            .as("the edge starts from the class-data cache the training run's edge made")
                            .anyMatch(a -> a.startsWith("-XX:AOTCache=") && a.endsWith("-edge.aot"));
                }
                Http http = new Http("http://127.0.0.1:" + port, key);
                var created = http.post("/v1/projects", "{\"source\":\"github\",\"repo\":\"acme/kept\"}");
                assertThat(created.status()).isEqualTo(201);
                projectId = created.json().at("/data/id").asText();
                assertThat(http.get("/v1/projects").header("X-RateLimit-Limit")).isEqualTo("600");

                // SIGTERM through the handle: Process.destroy() would also close our end of its output
                first.process().toHandle().destroy();
                assertThat(first.waitForExit(Duration.ofSeconds(30))).isEqualTo(143);
                assertThat(first.output()).as("output after SIGTERM").contains("Slipway stopping", "Slipway stopped")
                        .as("the stop's writes reach the store before anything closes it").doesNotContain("already closed");
            }
            try (JavaProcess second = JavaProcess.start(env, dir, "server", "--api-port", "0", "--apps-port", "0")) {
                int port = port(second);
                assertThat(second.output()).doesNotContain("sk_").doesNotContain("Created account");
                var read = new Http("http://127.0.0.1:" + port, key).get("/v1/projects/" + projectId);
                assertThat(read.status()).isEqualTo(200);
                assertThat(read.json().at("/data/repo").asText()).isEqualTo("acme/kept");
            }
        } finally {
            TestStore.deleteTree(dir);
        }
    }

    @Test
    void aStoreThatCannotBeOpenedIsOneLineAndLeavesNoEdgeRunning() throws Exception {
        Path dir = Files.createTempDirectory("slipway-proc-");
        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort(); // nothing listens there once it is closed
        }
        Path data = dir.resolve("data");
        String url = "jdbc:postgresql://127.0.0.1:" + closed + "/gone?user=postgres&password=hunter2-secret";
        try (JavaProcess server = JavaProcess.start(Map.of("SLIPWAY_DATA_DIR", data.toString(), "SLIPWAY_DATABASE_URL", url), dir,
                "server", "--api-port", "0", "--apps-port", "0")) {
            assertThat(server.waitForExit(Duration.ofSeconds(60))).isEqualTo(1);
            assertThat(server.output()).as("one line that names the store and why")
                    .contains("slipway server: the store (PostgreSQL at 127.0.0.1:" + closed + "/gone) could not be opened: ")
                    .contains("refused")
                    .doesNotContain("hunter2-secret").doesNotContain("\tat ").doesNotContain("Exception");
        }
        // the edge this start started was sent no routes: it is stopped with the failed start
        Matcher edge = Pattern.compile("\\(pid (\\d+)\\)").matcher(Files.readString(data.resolve("edge.log")));
        assertThat(edge.find()).as("the edge started").isTrue();
        long pid = Long.parseLong(edge.group(1));
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).as("edge process " + pid + " left running").isFalse();
        TestStore.deleteTree(dir);
    }
}
