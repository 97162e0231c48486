package dev.slipway.build.toolchain;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.Base64;
import java.util.Deque;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The platform's own fetches from an npm registry (a Node build, a package manager) against a registry on loopback
 * that fails the way a real one does now and then: a download cut short, a 503. Each is asked once more; a refusal
 * and a download that does not match its integrity are not.
 */
class RegistryRetryTest {
    private static final byte[] TARBALL = "the tool's tarball, ".repeat(2000).getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;
    private HttpServer server;
    private URI base;
    private final Queue<String> asked = new ConcurrentLinkedQueue<>();
    /** How each next request is answered, first to last; once empty, whole and right. */
    private final Deque<String> plan = new ConcurrentLinkedDeque<>();
    private byte[] served = TARBALL;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.createContext("/", this::answer);
        server.start();
        base = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/");
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    @Test
    void aDownloadCutShortIsAskedForOnceMore() throws Exception {
        NpmRegistry registry = new NpmRegistry(base);
        NpmRegistry.Release release = registry.releases("tool").values().iterator().next();
        plan.add("cut");
        Path target = dir.resolve("tool.tgz");
        registry.download(release, target, null);
        assertThat(Files.readAllBytes(target)).isEqualTo(TARBALL);
        assertThat(asked).containsExactly("/tool", "/tool/-/tool-1.0.0.tgz", "/tool/-/tool-1.0.0.tgz");
    }

    @Test
    void aServerErrorIsAskedOnceMoreAndARefusalIsNot() throws Exception {
        NpmRegistry registry = new NpmRegistry(base);
        plan.add("503");
        assertThat(registry.releases("tool")).hasSize(1);
        assertThat(asked).containsExactly("/tool", "/tool");

        asked.clear();
        plan.add("404");
        assertThatThrownBy(() -> registry.releases("tool")).isInstanceOf(IOException.class).hasMessageContaining("answered HTTP 404");
        assertThat(asked).containsExactly("/tool");

        asked.clear();
        plan.addAll(List.of("503", "503"));
        assertThatThrownBy(() -> registry.releases("tool")).hasMessageContaining("answered HTTP 503");
        assertThat(asked).as("once more, not more").containsExactly("/tool", "/tool");
    }

    @Test
    void aDownloadThatDoesNotMatchItsIntegrityIsNotAskedForAgain() throws Exception {
        NpmRegistry registry = new NpmRegistry(base);
        NpmRegistry.Release release = registry.releases("tool").values().iterator().next();
        served = "something else".getBytes(StandardCharsets.UTF_8);
        asked.clear();
        assertThatThrownBy(() -> registry.download(release, dir.resolve("tool.tgz"), null))
                .hasMessageContaining("does not match the registry's integrity");
        assertThat(asked).containsExactly("/tool/-/tool-1.0.0.tgz");
    }

    private void answer(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            asked.add(path);
            String how = plan.pollFirst();
            if (how != null && !how.equals("cut")) {
                exchange.sendResponseHeaders(Integer.parseInt(how), -1);
                return;
            }
            byte[] body = path.contains("/-/") ? served : metadata();
            exchange.sendResponseHeaders(200, body.length);
            if ("cut".equals(how)) {
                exchange.getResponseBody().write(body, 0, body.length / 2);
                exchange.getResponseBody().flush();
                throw new IOException("cut short on purpose"); // the connection closes with half the body sent
            }
            exchange.getResponseBody().write(body);
        }
    }

    private byte[] metadata() {
        String integrity;
        try {
            integrity = "sha512-" + Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-512").digest(TARBALL));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return ("{\"name\":\"tool\",\"versions\":{\"1.0.0\":{\"dist\":{\"tarball\":\"" + base + "tool/-/tool-1.0.0.tgz\","
                + "\"integrity\":\"" + integrity + "\"},\"bin\":\"bin/tool.js\"}}}").getBytes(StandardCharsets.UTF_8);
    }
}
