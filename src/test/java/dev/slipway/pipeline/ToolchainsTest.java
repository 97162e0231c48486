package dev.slipway.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.core.Json;
import dev.slipway.testing.Apps;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import java.io.IOException;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Package managers from the lockfile and Node versions from the app, through the API with real
 * installs from the npm registry, in the sandbox where the machine has one: a pnpm and a yarn classic app
 * (and a yarn berry one, Plug'n'Play) get the old versions their lockfiles pin (the ranges in package.json
 * allow newer ones), built and started with their own package manager; an app asking for Node 22 builds and runs on an official Node 22 build,
 * and so does one whose lockfile holds a package that requires it (unless a version file chooses);
 * a range no Node build satisfies fails the build with a reason naming it.
 */
@EndToEnd
class ToolchainsTest {
    private static final Duration BUILD = Duration.ofMinutes(10);

    @RegisterExtension
    static final GitDeploys deploys = new GitDeploys();

    private static String migrate(String repo, Map<String, byte[]> files) {
        deploys.push(repo, files);
        return deploys.runs().migrate(repo);
    }

    private static JsonNode answer(String migration) {
        String url = deploys.runs().http().get("/v1/projects/" + deploys.runs().projectOf(migration)).json().at("/data/url").asText();
        Http.Response r = Apps.get(url);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        try {
            return Json.MAPPER.readTree(r.body());
        } catch (IOException e) {
            throw new AssertionError(r.body(), e);
        }
    }

    @Test
    void lockfilesPickThePackageManagerAndItsPinnedVersions() {
        String pnpm = migrate("toolchains/pnpm", FrameworksTest.fixture("pnpm"));
        String yarn = migrate("toolchains/yarn-classic", FrameworksTest.fixture("yarn-classic"));

        deploys.runs().await("migrations", pnpm, "complete", BUILD);
        assertThat(deploys.runs().messages("migrations", pnpm))
                .anyMatch(m -> m.equals("info pnpm-lock.yaml, packageManager pnpm@8.15.9 in package.json → pnpm 8.15.9"))
                .anyMatch(m -> m.matches("info Running .*/toolchains/pnpm/8\\.15\\.9/bin/pnpm install --frozen-lockfile.*"));
        JsonNode p = answer(pnpm);
        assertThat(p.get("marker").asText()).isEqualTo("fixture:pnpm");
        assertThat(p.get("ms").asText()).as("ms as pnpm-lock.yaml pins it (package.json allows ^2.1.1)").isEqualTo("2.1.1");
        assertThat(p.get("builtBy").asText()).as("the build script's runner").startsWith("pnpm/8.15.9 ");

        deploys.runs().await("migrations", yarn, "complete", BUILD);
        assertThat(deploys.runs().messages("migrations", yarn))
                .anyMatch(m -> m.matches("info yarn\\.lock \\(no __metadata\\) → yarn classic 1\\.\\d+\\.\\d+"))
                .anyMatch(m -> m.matches("info Running .*/toolchains/yarn/1\\.\\d+\\.\\d+/bin/yarn install --frozen-lockfile.*"));
        JsonNode y = answer(yarn);
        assertThat(y.get("marker").asText()).isEqualTo("fixture:yarn-classic");
        assertThat(y.get("ms").asText()).as("ms as yarn.lock pins it (package.json allows ^2.0.0)").isEqualTo("2.0.0");
        assertThat(y.get("builtBy").asText()).startsWith("yarn/1.");
    }

    @Test
    void yarnBerryInstallsImmutablyAndStartsThroughPlugAndPlay() {
        String id = migrate("toolchains/yarn-berry", FrameworksTest.fixture("yarn-berry"));
        deploys.runs().await("migrations", id, "complete", BUILD);
        assertThat(deploys.runs().messages("migrations", id))
                .anyMatch(m -> m.equals("info yarn.lock, packageManager yarn@4.9.4 in package.json → yarn berry 4.9.4"))
                .anyMatch(m -> m.matches("info Running .*/toolchains/@yarnpkg\\+cli-dist/4\\.9\\.4/bin/yarn install --immutable"))
                .anyMatch(m -> m.matches("info Start command: .*/bin/yarn start"));
        JsonNode b = answer(id);
        assertThat(b.get("marker").asText()).isEqualTo("fixture:yarn-berry");
        assertThat(b.get("ms").asText()).as("ms as yarn.lock pins it (package.json allows ^2.1.1)").isEqualTo("2.1.1");
        assertThat(b.get("builtBy").asText()).startsWith("yarn/4.9.4 ");
    }

    @Test
    void enginesNodePicksTheNodeTheAppBuildsAndRunsWith() {
        String id = migrate("toolchains/node22", FrameworksTest.fixture("node22"));
        deploys.runs().await("migrations", id, "complete", BUILD);
        assertThat(deploys.runs().messages("migrations", id)).anyMatch(m -> m.matches("info engines\\.node \\^22 in package\\.json → Node 22\\.\\d+\\.\\d+"));
        JsonNode a = answer(id);
        assertThat(a.get("marker").asText()).isEqualTo("fixture:node22");
        assertThat(a.get("node").asText()).startsWith("v22.");
        assertThat(a.get("builtWith").asText()).isEqualTo(a.get("node").asText());
    }

    @Test
    void aPackageInTheLockfileThatNeedsANewerNodeGetsItUnlessAVersionFileChooses() {
        // commander 15 declares engines.node >=22.12.0 in package-lock.json; the app asks for no version
        String id = migrate("toolchains/node-engines", FrameworksTest.fixture("node-engines"));
        Map<String, byte[]> pinned = new LinkedHashMap<>(FrameworksTest.fixture("node-engines"));
        pinned.put(".node-version", "20\n".getBytes(StandardCharsets.UTF_8));
        String chosen = migrate("toolchains/node-engines-pinned", pinned);

        deploys.runs().await("migrations", id, "complete", BUILD);
        assertThat(deploys.runs().messages("migrations", id)).anyMatch(m -> m.matches("info Node 22\\.\\d+\\.\\d+: commander@15\\.0\\.0 "
                + "requires node >=22\\.12\\.0 \\(package-lock\\.json\\) and the system's \\d+\\.\\d+\\.\\d+ is older; "
                + "a \\.node-version file chooses another"));
        JsonNode a = answer(id);
        assertThat(a.get("node").asText()).startsWith("v22.");
        assertThat(a.get("builtWith").asText()).isEqualTo(a.get("node").asText());

        deploys.runs().await("migrations", chosen, "complete", BUILD);
        assertThat(deploys.runs().messages("migrations", chosen)).anyMatch(m -> m.matches("info \\.node-version 20 → Node 20\\.\\d+\\.\\d+"))
                .noneMatch(m -> m.contains("requires node"));
        assertThat(answer(chosen).get("node").asText()).startsWith("v20.");
    }

    @Test
    void aRangeNoNodeBuildSatisfiesFailsTheBuildNamingIt() {
        Map<String, byte[]> files = new LinkedHashMap<>(FrameworksTest.fixture("node-plain"));
        files.put(".nvmrc", ">=99 <100\n".getBytes(StandardCharsets.UTF_8));
        String id = migrate("toolchains/node99", files);
        deploys.runs().await("migrations", id, "failed", BUILD);
        List<String> log = deploys.runs().messages("migrations", id);
        assertThat(log).anyMatch(m -> m.matches("error Build failed: \\.nvmrc >=99 <100 matches no official Node build "
                + "\\(the newest is \\d+\\.\\d+\\.\\d+\\)"));
        assertThat(log).noneMatch(m -> m.contains("Running npm"));
    }

    @Test
    void aTenantsBuildCannotPlantAFileInTheSharedNodeEveryoneRuns() throws Exception {
        Map<String, byte[]> files = new LinkedHashMap<>(FrameworksTest.fixture("node22"));
        String plant = "const p = require('path').join(require('path').dirname(process.execPath), 'planted');"
                + " try { require('fs').writeFileSync(p, 'x'); console.log('PLANT-RESULT planted ' + p); }"
                + " catch (e) { console.log('PLANT-RESULT refused ' + e.code); }"
                + " require('fs').writeFileSync('built-with.txt', process.version);";
        files.put("plant.js", plant.getBytes(StandardCharsets.UTF_8));
        files.put("package.json", """
                {"name": "hostile-node22", "private": true, "engines": {"node": "^22"},
                 "scripts": {"build": "node plant.js", "start": "node server.js"}}
                """.getBytes(StandardCharsets.UTF_8));
        String id = migrate("toolchains/node22-hostile", files);
        deploys.runs().await("migrations", id, "complete", BUILD);
        List<String> log = deploys.runs().messages("migrations", id);
        assertThat(log).as(String.join("\n", log)).anyMatch(m -> m.contains("PLANT-RESULT refused"))
                .noneMatch(m -> m.contains("PLANT-RESULT planted"));
        try (var walk = Files.walk(deploys.server().slipway().config().dataDir().resolve("toolchains"))) {
            assertThat(walk.filter(f -> f.getFileName().toString().equals("planted")).toList()).isEmpty();
        }
    }
}
