package dev.slipway.images;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.cloud.tools.jib.api.Containerizer;
import com.google.cloud.tools.jib.api.ImageReference;
import com.google.cloud.tools.jib.api.Jib;
import com.google.cloud.tools.jib.api.RegistryImage;
import com.google.cloud.tools.jib.api.buildplan.AbsoluteUnixPath;
import com.google.cloud.tools.jib.api.buildplan.FileEntriesLayer;
import java.util.List;
import com.google.cloud.tools.jib.api.buildplan.ImageFormat;
import com.google.cloud.tools.jib.api.buildplan.FilePermissions;
import dev.slipway.testing.Await;
import dev.slipway.testing.TestStore;
import org.bouncycastle.crypto.generators.OpenBSDBCrypt;
import java.net.InetAddress;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.GZIPInputStream;

/**
 * A real registry (Debian's docker-registry, distribution 2.8) on a free loopback port with its storage in a
 * temp dir, and a reader of its HTTP API. Fails, never skips, when the binary is missing.
 */
public final class LoopbackRegistry implements AutoCloseable {
    static final String BINARY = "/usr/bin/docker-registry";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ACCEPT = "application/vnd.oci.image.manifest.v1+json,"
            + "application/vnd.docker.distribution.manifest.v2+json";

    private final Process process;
    private final Path dir;
    private final int port;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private LoopbackRegistry(Process process, Path dir, int port) {
        this.process = process;
        this.dir = dir;
        this.port = port;
    }

    public static LoopbackRegistry start() {
        return start(null, null);
    }

    /**
     * A registry that answers only {@code user} with {@code password} (its htpasswd, bcrypt as the registry wants),
     * or anyone when {@code user} is null.
     */
    public static LoopbackRegistry start(String user, String password) {
        if (!Files.isExecutable(Path.of(BINARY))) throw new AssertionError(BINARY + " is not installed (apt-get install docker-registry)");
        try {
            Path dir = Files.createTempDirectory("slipway-registry");
            int port = freePort();
            Path config = dir.resolve("config.yml");
            String auth = "";
            if (user != null) {
                byte[] salt = new byte[16];
                new SecureRandom().nextBytes(salt);
                Files.writeString(dir.resolve("htpasswd"), user + ":"
                        + OpenBSDBCrypt.generate("2y", password.toCharArray(), salt, 5) + "\n");
                auth = """
                        auth:
                          htpasswd:
                            realm: slipway-test
                            path: %s
                        """.formatted(dir.resolve("htpasswd"));
            }
            Files.writeString(config, auth + """
                    version: 0.1
                    log:
                      level: warn
                    storage:
                      filesystem:
                        rootdirectory: %s
                    http:
                      addr: 127.0.0.1:%d
                    """.formatted(dir.resolve("data"), port));
            Process p = new ProcessBuilder(BINARY, "serve", config.toString())
                    .redirectErrorStream(true).redirectOutput(dir.resolve("registry.log").toFile()).start();
            LoopbackRegistry r = new LoopbackRegistry(p, dir, port);
            Runtime.getRuntime().addShutdownHook(new Thread(r::close));
            Await.until(Duration.ofSeconds(20), "the registry on port " + port, () -> {
                if (!p.isAlive()) throw new AssertionError("docker-registry exited: " + r.log());
                int status = r.status("/v2/");
                return status == 200 || user != null && status == 401;
            });
            return r;
        } catch (IOException e) {
            throw new AssertionError("starting docker-registry", e);
        }
    }

    public String host() {
        return "127.0.0.1:" + port;
    }

    /** Pushes a small real base image built from scratch: one layer with {@code /base/marker.txt}. */
    public String pushBase(String name) {
        try {
            Path files = Files.createTempDirectory(dir, "base");
            Path marker = Files.writeString(files.resolve("marker.txt"), "slipway test base\n");
            String ref = host() + "/" + name;
            Jib.fromScratch()
                    .addFileEntriesLayer(FileEntriesLayer.builder().setName("base")
                            .addEntry(marker, AbsoluteUnixPath.get("/base/marker.txt")).build())
                    .containerize(Containerizer.to(RegistryImage.named(ImageReference.parse(ref)))
                            .setAllowInsecureRegistries(true)
                            .setBaseImageLayersCache(dir.resolve("cache-base"))
                            .setApplicationLayersCache(dir.resolve("cache-app")));
            return ref;
        } catch (Exception e) {
            throw new AssertionError("pushing the base image", e);
        }
    }

    /** Pushes an image of one layer, in the OCI format, with {@code env} as its environment; answers its reference. */
    public String push(String name, FileEntriesLayer layer, Map<String, String> env) {
        String ref = host() + "/" + name;
        try {
            Jib.fromScratch().addFileEntriesLayer(layer).setFormat(ImageFormat.OCI).setEnvironment(env)
                    .containerize(Containerizer.to(RegistryImage.named(ImageReference.parse(ref))).setAllowInsecureRegistries(true)
                            .setBaseImageLayersCache(dir.resolve("cache-base")).setApplicationLayersCache(dir.resolve("cache-app")));
            return ref;
        } catch (Exception e) {
            throw new AssertionError("pushing " + ref, e);
        }
    }

    /** A base with a shell and nothing else: the machine's static busybox as {@code /bin/busybox} and {@code /bin/sh}. */
    public String pushBusybox(String name) {
        FileEntriesLayer.Builder layer = FileEntriesLayer.builder().setName("busybox");
        for (String at : List.of("/bin/busybox", "/bin/sh")) {
            layer.addEntry(Path.of("/usr/bin/busybox"), AbsoluteUnixPath.get(at), FilePermissions.fromOctalString("755"));
        }
        return push(name, layer.build(), Map.of("PATH", "/bin"));
    }

    /** The manifest of {@code repository@digest}, asking for the OCI and Docker v2 types. */
    public JsonNode manifest(String repository, String reference) {
        return JSON_read(get("/v2/" + repository + "/manifests/" + reference, ACCEPT));
    }

    JsonNode blobJson(String repository, String digest) {
        return JSON_read(get("/v2/" + repository + "/blobs/" + digest, "*/*"));
    }

    /** The entries of a (gzipped) tar layer: path → content (null for directories). */
    Map<String, byte[]> layer(String repository, String digest) {
        byte[] blob = get("/v2/" + repository + "/blobs/" + digest, "*/*");
        Map<String, byte[]> out = new LinkedHashMap<>();
        try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(blob));
             TarArchiveInputStream tar = new TarArchiveInputStream(in)) {
            TarArchiveEntry e;
            while ((e = tar.getNextEntry()) != null) {
                if (e.isDirectory()) out.put(e.getName(), null);
                else {
                    ByteArrayOutputStream b = new ByteArrayOutputStream();
                    tar.transferTo(b);
                    out.put(e.getName(), b.toByteArray());
                }
            }
        } catch (IOException e) {
            throw new AssertionError("reading layer " + digest, e);
        }
        return out;
    }

    int status(String path) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create("http://" + host() + path)).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private byte[] get(String path, String accept) {
        try {
            HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(URI.create("http://" + host() + path))
                    .header("Accept", accept).timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofByteArray());
            if (r.statusCode() != 200) throw new AssertionError("GET " + path + ": " + r.statusCode() + " " + new String(r.body(), StandardCharsets.UTF_8));
            return r.body();
        } catch (IOException e) {
            throw new AssertionError("GET " + path, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static JsonNode JSON_read(byte[] body) {
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    String log() {
        try {
            return Files.readString(dir.resolve("registry.log"));
        } catch (IOException e) {
            return "";
        }
    }

    static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        TestStore.deleteTree(dir);
    }
}
