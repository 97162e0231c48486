package dev.slipway.images;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.testing.Await;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.ServerPerStore;
import dev.slipway.testing.Statuses;
import dev.slipway.testing.TestStore;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Python app's image is self-contained: its artifact layer holds every package the app imports,
 * including those the build took from the machine's site-packages (Debian's python3-fastapi and what it
 * imports), and its entrypoint runs on a bare interpreter of the same version. No container runs here: the test
 * pulls the layer back, unpacks it, and runs the image's entrypoint with the machine's interpreter started
 * with {@code -S} (no site-packages of the machine on its path), the image's PYTHONPATH moved to where the layer
 * was unpacked, and asks the app over HTTP.
 */
@EachStore
@EndToEnd
class PythonImageTest {
    private static final Duration BUILD = Duration.ofMinutes(5);
    private static final Path PYTHON = Path.of("/usr/bin/python3");
    static final LoopbackRegistry registry = LoopbackRegistry.start();
    static final String version = pythonVersion();
    static final String base = registry.pushBase("base/python:" + version);

    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.withGit(c -> c.images(
            new ImageSettings(registry.host() + "/slipway", Map.of("python", registry.host() + "/base/python:{version}"), true)));

    private static final String MAIN = """
            from fastapi import FastAPI
            from fastapi.responses import PlainTextResponse

            app = FastAPI()


            @app.get("/", response_class=PlainTextResponse)
            def root() -> str:
                return "python-image:ok"
            """;

    @Test
    void thePythonImageHoldsWhatTheAppImports_andRunsOnAnInterpreterWithoutTheMachinesPackages() throws Exception {
        // the control: without site, this machine's interpreter does not find fastapi, so only the layer can provide it
        assertThat(run(List.of(PYTHON.toString(), "-S", "-c", "import fastapi"), Map.of(), Path.of("/")).waitFor())
                .as("python3 -S finds no fastapi of the machine's").isNotZero();

        Http http = server.get().tenant(Tier.TEAM).http();
        String repo = "images/" + server.kind().name().toLowerCase() + "-python";
        server.git().createRepo(repo);
        server.git().commitBytes(repo, "main", Map.of("main.py", MAIN.getBytes(StandardCharsets.UTF_8),
                "requirements.txt", "fastapi\nuvicorn\n".getBytes(StandardCharsets.UTF_8)), "the app");
        var r = http.post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"" + repo + "\"}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        String project = http.get("/v1/migrations/" + r.json().at("/data/id").asText()).json().at("/data/project_id").asText();
        JsonNode list = http.get("/v1/deployments?project_id=" + project + "&limit=100").json().get("data");
        String deployment = list.get(list.size() - 1).get("id").asText();
        String image = Statuses.await(http, "deployments", deployment, "live", BUILD).get("image").asText();

        String repository = "slipway/" + project.toLowerCase();
        JsonNode manifest = registry.manifest(repository, image.substring(image.indexOf('@') + 1));
        JsonNode layers = manifest.get("layers");
        assertThat(layers).hasSize(2);
        // the base of the venv's Python version: python:{version} became python:<this machine's python3>
        assertThat(layers.get(0).get("digest").asText())
                .isEqualTo(registry.manifest("base/python", version).at("/layers/0/digest").asText());

        JsonNode config = registry.blobJson(repository, manifest.at("/config/digest").asText()).get("config");
        List<String> entrypoint = new ArrayList<>();
        config.get("Entrypoint").forEach(a -> entrypoint.add(a.asText()));
        assertThat(entrypoint).startsWith("python3", "-m", "uvicorn", "main:app").contains("0.0.0.0", "8080")
                .noneMatch(a -> a.contains("/artifacts/") || a.equals("127.0.0.1"));
        String sitePackages = "/app/.venv/lib/python" + version + "/site-packages";
        List<String> env = new ArrayList<>();
        config.get("Env").forEach(e -> env.add(e.asText()));
        assertThat(env).contains("PYTHONPATH=" + sitePackages, "PORT=8080");

        Map<String, byte[]> layer = registry.layer(repository, layers.get(1).get("digest").asText());
        Set<String> names = new TreeSet<>();
        layer.keySet().forEach(n -> names.add(strip(n)));
        String site = sitePackages.substring(1);
        // what the app imports and what those import, which the build found on the machine, not in the venv
        for (String module : List.of("fastapi", "starlette", "pydantic", "uvicorn", "anyio", "sniffio", "idna", "click", "h11")) {
            assertThat(names).as(module + " in the layer").contains(site + "/" + module + "/__init__.py");
        }
        assertThat(names).contains(site + "/typing_extensions.py");
        assertThat(names).noneMatch(n -> n.startsWith("usr/") || n.startsWith("app/.venv/bin/python"));

        Path unpacked = Files.createTempDirectory("slipway-python-image");
        for (var e : layer.entrySet()) {
            Path to = unpacked.resolve(strip(e.getKey())).normalize();
            assertThat(to.startsWith(unpacked)).as(e.getKey()).isTrue();
            if (e.getValue() == null) Files.createDirectories(to);
            else {
                Files.createDirectories(to.getParent());
                Files.write(to, e.getValue());
            }
        }
        int port = LoopbackRegistry.freePort();
        List<String> argv = new ArrayList<>(List.of(PYTHON.toString(), "-S"));
        for (String a : entrypoint.subList(1, entrypoint.size())) {
            argv.add(a.equals("8080") ? Integer.toString(port) : a.equals("0.0.0.0") ? "127.0.0.1" : a);
        }
        Path workDir = unpacked.resolve(config.get("WorkingDir").asText().substring(1));
        Process app = run(argv, Map.of("PYTHONPATH", unpacked.resolve(site).toString()), workDir);
        try {
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();
            var body = new AtomicReference<String>();
            Await.until(Duration.ofSeconds(60), "the app from the image's layer on port " + port, () -> {
                if (!app.isAlive()) {
                    String out;
                    try {
                        out = new String(app.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                    } catch (IOException e) {
                        out = e.toString();
                    }
                    throw new AssertionError("the app exited: " + out);
                }
                try {
                    HttpResponse<String> res = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/"))
                            .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
                    if (res.statusCode() == 200) body.set(res.body());
                    return res.statusCode() == 200;
                } catch (IOException notYet) {
                    return false;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError(e);
                }
            });
            assertThat(body.get()).isEqualTo("python-image:ok");
        } finally {
            app.destroy();
            if (!app.waitFor(10, TimeUnit.SECONDS)) app.destroyForcibly();
            TestStore.deleteTree(unpacked);
        }
    }

    private static Process run(List<String> argv, Map<String, String> env, Path dir) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(argv).directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().clear();
        pb.environment().put("PATH", "/usr/bin:/bin");
        pb.environment().putAll(env);
        return pb.start();
    }

    private static String pythonVersion() {
        try {
            Process p = new ProcessBuilder(PYTHON.toString(), "-c", "import sys; print('%d.%d' % sys.version_info[:2])").start();
            String v = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            p.waitFor();
            return v;
        } catch (IOException | InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    private static String strip(String name) {
        String n = name.startsWith("./") ? name.substring(2) : name.startsWith("/") ? name.substring(1) : name;
        return n.endsWith("/") ? n.substring(0, n.length() - 1) : n;
    }
}
