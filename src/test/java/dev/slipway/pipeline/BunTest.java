package dev.slipway.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Apps;
import dev.slipway.testing.Await;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.TestServer;
import dev.slipway.testing.Zips;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A bun app ({@code bun.lock}): bun's own build comes from the npm registry into the tool store, installs the
 * app from its lockfile, and runs it ({@code bun server.js}) in the sandbox. Without a registry to get bun
 * from and without a bun on the machine, the build fails saying so. H2 only: slow.
 */
@EndToEnd
class BunTest {
    private static final Duration BUILD = Duration.ofMinutes(10);

    @RegisterExtension
    static final GitDeploys deploys = new GitDeploys();

    @Test
    void aBunAppInstallsAndRunsWithBunFromTheRegistry() {
        deploys.push("bun/app", FrameworksTest.fixture("bun"));
        var r = deploys.runs().http().post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"bun/app\"}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        String id = r.json().at("/data/id").asText();
        JsonNode done = deploys.runs().await("migrations", id, "complete", BUILD);
        List<String> log = deploys.runs().messages("migrations", id);
        assertThat(log).anyMatch(m -> m.matches("info bun\\.lock → bun 1\\.\\d+\\.\\d+"));
        assertThat(log).anyMatch(m -> m.contains("Running ") && m.contains("bun install --frozen-lockfile"));
        // bun has no prune: its dev dependencies stay, and the log says why
        assertThat(log).anyMatch(m -> m.contains("Dev dependencies kept: pruning is not supported with bun"));
        String url = deploys.runs().http().get("/v1/projects/" + done.get("project_id").asText()).json().at("/data/url").asText();
        assertThat(Apps.get(url).body()).matches("fixture:bun bun 1\\.\\d+\\.\\d+ 1m\n");
    }

    @Test
    void withoutARegistryOrABunOnTheMachineTheBuildSaysSo() {
        if (Files.isExecutable(Path.of("/usr/local/bin/bun")) || Files.isExecutable(Path.of("/usr/bin/bun"))) {
            throw new AssertionError("this machine has a bun of its own: the test needs a machine without one");
        }
        Map<String, String> env = new HashMap<>(System.getenv());
        env.put("SLIPWAY_TOOLCHAIN_REGISTRY", "http://127.0.0.1:1/"); // nothing listens there
        try (TestServer offline = TestServer.start(Dialect.H2, c -> c.environment(env))) {
            Http http = offline.tenant(Tier.TEAM).http();
            Map<String, String> files = new LinkedHashMap<>();
            FrameworksTest.fixture("bun").forEach((name, bytes) -> files.put(name, new String(bytes, StandardCharsets.UTF_8)));
            var up = http.send("POST", "/v1/uploads", "application/zip", Zips.of(files));
            assertThat(up.status()).as(up.body()).isEqualTo(201);
            var m = http.post("/v1/migrations", "{\"source\":\"zip\",\"upload_id\":\"" + up.json().at("/data/id").asText() + "\"}");
            assertThat(m.status()).as(m.body()).isEqualTo(201);
            String id = m.json().at("/data/id").asText();
            JsonNode failed = Await.value(BUILD, "the migration to fail", () -> {
                JsonNode d = http.get("/v1/migrations/" + id + "?wait=5").json().get("data");
                assertThat(d.get("status").asText()).isNotEqualTo("complete");
                return d.get("status").asText().equals("failed") ? d : null;
            });
            assertThat(failed.get("status").asText()).isEqualTo("failed");
            String log = http.get("/v1/migrations/" + id + "/logs").body();
            assertThat(log).contains("bun is not available on this build server")
                    .contains("http://127.0.0.1:1/").contains("/usr/local/bin/bun");
        }
    }
}
