package dev.slipway.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Apps;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.GitServer;
import dev.slipway.testing.NpmMirror;
import dev.slipway.testing.TestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code SLIPWAY_NPM_REGISTRY} on this host's loopback: a build installs the app's packages from it, in the
 * sandbox, whose build steps reach that one port of the host and still none of the platform's own. H2 only.
 */
@EndToEnd
class NpmRegistryTest {
    private static final Duration BUILD = Duration.ofMinutes(5);

    @TempDir
    static Path dir;
    private static NpmMirror registry;
    private static GitServer git;
    private static TestServer server;
    private static Runs runs;

    @BeforeAll
    static void start() {
        registry = NpmMirror.start(dir.resolve("registry"));
        git = GitServer.start();
        server = TestServer.start(Dialect.H2, c -> c.gitHosts(git.hosts()).npmRegistry(registry.url()));
        runs = new Runs(server.tenant(Tier.TEAM).http());
    }

    @AfterAll
    static void stop() {
        if (server != null) server.close();
        if (git != null) git.close();
        if (registry != null) registry.close();
    }

    @Test
    void aBuildInstallsFromTheConfiguredRegistryAndReachesNoOtherPortOfTheHost() {
        git.createRepo("registry/app");
        git.commitBytes("registry/app", "main", app(), "an app with one dependency");
        String registryPort = Integer.toString(registry.url().getPort());
        String apiPort = Integer.toString(server.slipway().apiPort());
        var created = runs.http().post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"registry/app\",\"env_vars\":"
                + "{\"PROBE_TCP\":\"127.0.0.1:" + registryPort + ",127.0.0.1:" + apiPort + "\"}}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        String id = created.json().at("/data/id").asText();
        JsonNode done = runs.await("migrations", id, "complete", BUILD);

        assertThat(registry.asked()).as("what the build asked the configured registry for").contains("/ms", "/ms/-/ms-2.1.3.tgz");
        List<String> log = runs.messages("migrations", id);
        assertThat(log).as("the package script's probes").anyMatch(m -> m.endsWith(" probe 127.0.0.1:" + registryPort + " open"))
                .noneMatch(m -> m.contains(" probe 127.0.0.1:" + apiPort + " open"))
                .anyMatch(m -> m.contains(" probe 127.0.0.1:" + apiPort + " closed"));
        String url = runs.http().get("/v1/projects/" + done.get("project_id").asText()).json().at("/data/url").asText();
        assertThat(Apps.get(url).body()).isEqualTo("one minute is 60000 ms");
    }

    @Test
    void anInstallWhoseDownloadWasCutShortRunsOnceMore() {
        git.createRepo("registry/cut");
        git.commitBytes("registry/cut", "main", app("registry-cut"), "an app with one dependency");
        int before = registry.asked().size();
        registry.cutNext("/ms/-/ms-2.1.3.tgz");
        var created = runs.http().post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"registry/cut\"}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        String id = created.json().at("/data/id").asText();
        JsonNode done = runs.await("migrations", id, "complete", BUILD);

        List<String> asked = registry.asked();
        assertThat(asked.subList(before, asked.size())).as("the download cut short, then asked for again")
                .filteredOn("/ms/-/ms-2.1.3.tgz"::equals).hasSize(2);
        assertThat(runs.messages("migrations", id))
                .anyMatch(m -> m.equals("error npm error code ECONNRESET"))
                .anyMatch(m -> m.equals("warning The install failed on the network (ECONNRESET); running it once more"));
        String url = runs.http().get("/v1/projects/" + done.get("project_id").asText()).json().at("/data/url").asText();
        assertThat(Apps.get(url).body()).isEqualTo("one minute is 60000 ms");
    }

    private static Map<String, byte[]> app() {
        return app("registry-app");
    }

    /** A Node app using {@code ms}, whose install script reports which host ports its build step could open. */
    private static Map<String, byte[]> app(String name) {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("package.json", """
                {"name": "%s", "version": "1.0.0", "private": true,
                 "dependencies": {"ms": "2.1.3"},
                 "scripts": {"postinstall": "node probe.js", "start": "node server.js"}}
                """.formatted(name));
        files.put("probe.js", """
                const net = require("net");
                const targets = (process.env.PROBE_TCP || "").split(",").filter(Boolean);
                Promise.all(targets.map(t => new Promise(resolve => {
                  const i = t.lastIndexOf(":");
                  const s = net.connect({ host: t.slice(0, i), port: Number(t.slice(i + 1)), timeout: 5000 });
                  const done = r => { s.destroy(); resolve("probe " + t + " " + r); };
                  s.on("connect", () => done("open"));
                  s.on("timeout", () => done("timed out"));
                  s.on("error", e => done("closed " + e.code));
                }))).then(lines => lines.forEach(l => console.log(l)));
                """);
        files.put("server.js", """
                const ms = require("ms");
                require("http").createServer((req, res) => res.end("one minute is " + ms("1m") + " ms"))
                  .listen(Number(process.env.PORT), "127.0.0.1");
                """);
        Map<String, byte[]> bytes = new LinkedHashMap<>();
        files.forEach((file, text) -> bytes.put(file, text.getBytes(StandardCharsets.UTF_8)));
        return bytes;
    }
}
