package dev.slipway.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.testing.Apps;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each fixture app of src/test/resources/fixtures pushed to a git server and migrated through the API
 * with its framework detected: real npm installs, vite and next builds, a FastAPI venv; each answers
 * with its marker through the router (vite-react as a static site with SPA fallback). H2 only: slow.
 */
@EndToEnd
class FrameworksTest {
    private static final Set<String> SKIPPED = Set.of("node_modules", ".next", "dist", "__pycache__", ".venv");
    private static final Duration BUILD = Duration.ofMinutes(10);

    @RegisterExtension
    static final GitDeploys deploys = new GitDeploys();

    /** The fixture's files, without build output or installed dependencies. */
    static Map<String, byte[]> fixture(String name) {
        try {
            Path root = Path.of(FrameworksTest.class.getResource("/fixtures/" + name).toURI());
            Map<String, byte[]> files = new LinkedHashMap<>();
            try (Stream<Path> walk = Files.walk(root)) {
                for (Path p : walk.filter(Files::isRegularFile).sorted().toList()) {
                    Path rel = root.relativize(p);
                    boolean skipped = false;
                    for (Path part : rel) skipped |= SKIPPED.contains(part.toString());
                    if (!skipped) files.put(rel.toString().replace('\\', '/'), Files.readAllBytes(p));
                }
            }
            assertThat(files).as("files of fixture " + name).isNotEmpty();
            return files;
        } catch (IOException | URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String migrate(String fixture) {
        String repo = "fixtures/" + fixture;
        deploys.push(repo, fixture(fixture));
        var r = deploys.runs().http().post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"" + repo + "\"}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().at("/data/id").asText();
    }

    private static String productionUrl(String migration) {
        return deploys.runs().http().get("/v1/projects/" + deploys.runs().projectOf(migration)).json().at("/data/url").asText();
    }

    @Test
    void everyFixtureMigratesAndAnswersThroughTheRouter() {
        // all four at once: two build while two wait for a slot
        Map<String, String> migrations = new LinkedHashMap<>();
        for (String f : List.of("nextjs", "vite-react", "express", "fastapi")) migrations.put(f, migrate(f));
        Map<String, String> detected = Map.of("nextjs", "nextjs", "vite-react", "react-vite", "express", "node-express",
                "fastapi", "python-fastapi");
        migrations.forEach((fixture, id) -> {
            JsonNode done = deploys.runs().await("migrations", id, "complete", BUILD);
            assertThat(deploys.runs().messages("migrations", id)).as(fixture)
                    .anyMatch(m -> m.startsWith("info Detected framework " + detected.get(fixture) + " "));
            // the spec's framework is the detected one once it is known
            assertThat(done.get("framework").asText()).as(fixture).isEqualTo(detected.get(fixture));
            assertThat(deploys.runs().migration(id).get("framework").asText()).as(fixture).isEqualTo(detected.get(fixture));
        });

        // Next: installed with npm ci, built, started with next start on the runtime's port and loopback only
        assertThat(deploys.runs().messages("migrations", migrations.get("nextjs")))
                .anyMatch(m -> m.startsWith("info Running npm ci --no-audit --no-fund --prefer-offline --include=dev"))
                .anyMatch(m -> m.equals("info Running npm run build"))
                .anyMatch(m -> m.equals("info Start command: node_modules/.bin/next start -p ${PORT} -H 127.0.0.1"));
        for (String f : List.of("express", "nextjs", "fastapi")) {
            Http.Response r = Apps.get(productionUrl(migrations.get(f)));
            assertThat(r.status()).as(f + ": " + r.body()).isEqualTo(200);
            assertThat(r.body()).as(f).contains("fixture:" + f);
        }

        // the static site: index.html, one of its built assets, and the SPA fallback
        String site = productionUrl(migrations.get("vite-react"));
        Http.Response index = Apps.get(site + "/");
        assertThat(index.status()).isEqualTo(200);
        assertThat(index.header("Content-Type")).startsWith("text/html");
        assertThat(index.body()).contains("<title>fixture:vite-react</title>", "<div id=\"root\">");
        Matcher asset = Pattern.compile("src=\"(/assets/[^\"]+\\.js)\"").matcher(index.body());
        assertThat(asset.find()).as("a built script in " + index.body()).isTrue();
        Http.Response script = Apps.get(site + asset.group(1));
        assertThat(script.status()).isEqualTo(200);
        assertThat(script.header("Content-Type")).contains("javascript");
        assertThat(script.body()).contains("fixture:vite-react");
        Http.Response route = Apps.get(site + "/some/route");
        assertThat(route.status()).isEqualTo(200);
        assertThat(route.body()).isEqualTo(index.body());
        assertThat(Apps.get(site + "/assets/missing.js").status()).isEqualTo(404);
    }
}
