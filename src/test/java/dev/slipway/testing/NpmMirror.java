package dev.slipway.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The public npm registry, played on loopback by a caching proxy of {@code registry.npmjs.org}: an operator's
 * registry (a Verdaccio, an Artifactory) for the tests of {@code SLIPWAY_NPM_REGISTRY}. It records what it was
 * asked for; metadata is served with its tarball addresses pointing here; what the registry refuses (a 404 for a
 * package that does not exist) is passed on, not kept.
 */
public final class NpmMirror implements AutoCloseable {
    private static final URI UPSTREAM = URI.create("https://registry.npmjs.org/");
    private static final String ABBREVIATED = "application/vnd.npm.install-v1+json";

    private final HttpServer server;
    private final Path dir;
    private final URI url;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(20))
            .followRedirects(HttpClient.Redirect.NORMAL).build();
    private final AtomicLong fetched = new AtomicLong();
    private final Queue<String> asked = new ConcurrentLinkedQueue<>();
    /** Paths whose next answer is cut short: half its body, then the connection closes. */
    private final Set<String> cutNext = ConcurrentHashMap.newKeySet();

    private NpmMirror(Path dir) throws IOException {
        this.dir = Files.createDirectories(dir.toAbsolutePath());
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        this.server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        this.server.createContext("/", this::handle);
        this.server.start();
        this.url = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/");
    }

    /** A registry keeping what it fetched in {@code dir}. */
    public static NpmMirror start(Path dir) {
        try {
            return new NpmMirror(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("the npm mirror did not start", e);
        }
    }

    public URI url() {
        return url;
    }

    /** The paths asked for so far, in order. */
    public List<String> asked() {
        return List.copyOf(asked);
    }

    /**
     * The next answer for {@code path} sends half of its body and then closes the connection, as a connection
     * dropped during a download does; the one after is whole again.
     */
    public void cutNext(String path) {
        cutNext.add(path);
    }

    /** How many requests went on to the public registry. */
    public long fetched() {
        return fetched.get();
    }

    @Override
    public void close() {
        server.stop(0);
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getRawPath();
            asked.add(path);
            boolean head = exchange.getRequestMethod().equals("HEAD");
            if (!head && !exchange.getRequestMethod().equals("GET") || path.contains("..") || path.length() < 2) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            boolean tarball = path.contains("/-/");
            String accept = exchange.getRequestHeaders().getFirst("Accept");
            boolean abbreviated = !tarball && accept != null && accept.contains(ABBREVIATED);
            Path kept = dir.resolve(key((tarball ? "t" : abbreviated ? "a" : "f") + path));
            if (!Files.exists(kept) && !fetch(path, abbreviated, kept, exchange)) return;
            exchange.getResponseHeaders().set("Content-Type", tarball ? "application/octet-stream" : "application/json");
            if (tarball) {
                exchange.sendResponseHeaders(200, head ? -1 : Files.size(kept));
                if (!head && cutNext.remove(path)) {
                    byte[] whole = Files.readAllBytes(kept);
                    exchange.getResponseBody().write(whole, 0, whole.length / 2);
                    exchange.getResponseBody().flush();
                    throw new IOException("cut short on purpose");
                }
                if (!head) {
                    try (OutputStream out = exchange.getResponseBody()) {
                        Files.copy(kept, out);
                    }
                }
            } else {
                byte[] body = pointedHere(Files.readAllBytes(kept));
                exchange.sendResponseHeaders(200, head ? -1 : body.length);
                if (!head) exchange.getResponseBody().write(body);
            }
        } catch (IOException | RuntimeException e) {
            // the client sees its connection end; the next request tries the registry again
        }
    }

    /** Fetches {@code path} into {@code kept}; false when the registry refused it (its answer is passed on). */
    private boolean fetch(String path, boolean abbreviated, Path kept, HttpExchange exchange) throws IOException {
        HttpRequest request = HttpRequest.newBuilder(UPSTREAM.resolve(path.substring(1))).timeout(Duration.ofMinutes(5))
                .header("Accept", abbreviated ? ABBREVIATED + "; q=1.0, application/json; q=0.8" : "application/json").GET().build();
        Path part = Files.createTempFile(dir, "part-", ".tmp");
        try {
            HttpResponse<Path> response = http.send(request, HttpResponse.BodyHandlers.ofFile(part));
            fetched.incrementAndGet();
            if (response.statusCode() != 200) {
                byte[] body = Files.readAllBytes(part);
                exchange.sendResponseHeaders(response.statusCode(), body.length == 0 ? -1 : body.length);
                if (body.length > 0) exchange.getResponseBody().write(body);
                return false;
            }
            Files.move(part, kept, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } finally {
            Files.deleteIfExists(part);
        }
    }

    /** The metadata with every tarball address of the public registry pointing at this mirror instead. */
    private byte[] pointedHere(byte[] metadata) {
        return new String(metadata, StandardCharsets.UTF_8).replace(UPSTREAM.toString(), url.toString())
                .getBytes(StandardCharsets.UTF_8);
    }

    private static String key(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
