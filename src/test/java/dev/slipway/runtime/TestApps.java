package dev.slipway.runtime;

import dev.slipway.build.Artifact;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/** The dependency-free node test app (src/test/resources/apps/node) as an artifact, and plain HTTP to it. */
public final class TestApps {
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    private TestApps() {}

    public static Path nodeAppDir() {
        try {
            return Path.of(TestApps.class.getResource("/apps/node/server.js").toURI()).getParent();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    public static Artifact nodeArtifact() {
        return new Artifact("art_" + UUID.randomUUID().toString().substring(0, 8), "prj_test", "node-express", "abc123",
                nodeAppDir(), List.of("node", "server.js", "--port=${PORT}"), null, Instant.parse("2026-01-01T00:00:00Z"));
    }

    public static AppSpec spec(String version, Map<String, String> extraEnv) {
        var env = new HashMap<String, String>(extraEnv);
        env.put("VERSION", version);
        return new AppSpec("dep_" + UUID.randomUUID().toString().replace("-", "").substring(0, 20), "prj_test",
                nodeArtifact(), env, Set.of(), InstanceType.STARTER);
    }

    /** GET http://127.0.0.1:port/path; the body, or null when nothing answers. */
    public static String get(int port, String path) {
        try {
            HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.ofString());
            return r.body();
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    public static boolean alive(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            char state = stat.substring(stat.lastIndexOf(')') + 2).charAt(0);
            return state != 'Z' && state != 'X';
        } catch (IOException e) {
            return false;
        }
    }
}
