package dev.slipway.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.testing.Apps;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import java.io.IOException;
import java.nio.file.LinkOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Artifacts hold what runs, built for real from fixtures pushed to a git server: a TypeScript
 * Express app loses its devDependencies (typescript) and still serves, also after a rollback, with npm, pnpm,
 * yarn classic and yarn berry; an app that
 * needs a devDependency at run time is pruned, fails its start check and keeps the full install; a Next app
 * with {@code output: 'standalone'} becomes its standalone server with its static assets and public files.
 * H2 only: slow.
 */
@EndToEnd
class ArtifactsTest {
    private static final Duration BUILD = Duration.ofMinutes(10);
    private static final Pattern ARTIFACT = Pattern.compile("\\(artifact (art_[a-z0-9]+), ");

    @RegisterExtension
    static final GitDeploys deploys = new GitDeploys();
    static final Map<String, String> migrations = new LinkedHashMap<>();

    @BeforeAll
    static void start() {
        for (String f : new String[] {"express-dev", "express-devdep-runtime", "next-standalone", "express-dev-pnpm", "express-dev-yarn",
                "express-dev-berry"}) {
            String repo = "artifacts/" + f;
            deploys.push(repo, FrameworksTest.fixture(f));
            var r = deploys.runs().http().post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"" + repo + "\"}");
            assertThat(r.status()).as(r.body()).isEqualTo(201);
            migrations.put(f, r.json().at("/data/id").asText());
        }
        migrations.forEach((fixture, id) -> {
            JsonNode done = deploys.runs().await("migrations", id, "complete", BUILD);
            // the sizes docs/builds.md quotes
            messages(fixture).stream().filter(m -> m.contains("Dropped dev dependencies") || m.contains("Dev dependencies kept")
                    || m.contains("standalone output") || m.contains("Build finished"))
                    .forEach(m -> System.out.println(fixture + ": " + m));
            assertThat(done.get("framework").asText()).as(fixture).isEqualTo(fixture.startsWith("next") ? "nextjs" : "node-express");
        });
    }

    private static List<String> messages(String fixture) {
        return deploys.runs().messages("migrations", migrations.get(fixture));
    }

    private static String url(String fixture) {
        return deploys.runs().http().get("/v1/projects/" + deploys.runs().projectOf(migrations.get(fixture))).json().at("/data/url").asText();
    }

    private static Path artifact(List<String> log) {
        String line = log.stream().filter(m -> m.contains("Build finished")).findFirst().orElseThrow();
        Matcher m = ARTIFACT.matcher(line);
        assertThat(m.find()).as(line).isTrue();
        return deploys.server().slipway().config().dataDir().resolve("artifacts").resolve(m.group(1));
    }

    @Test
    void devDependenciesAreDroppedWhenTheAppStillAnswersWithoutThem() {
        List<String> log = messages("express-dev");
        assertThat(log).anyMatch(m -> m.matches("info Dropped dev dependencies: \\d+\\.\\d MB → \\d+\\.\\d MB of node_modules.*"));
        Path root = artifact(log);
        assertThat(root.resolve("node_modules/express/package.json")).isRegularFile();
        assertThat(root.resolve("node_modules/typescript")).doesNotExist();
        assertThat(root.resolve("node_modules/.bin/tsc")).doesNotExist();
        assertThat(root.resolve("dist/app.js")).isRegularFile();
        assertThat(Apps.get(url("express-dev")).body()).isEqualTo("fixture:express-dev\n");
        assertThat(Apps.get(url("express-dev") + "/modules").body()).isEqualTo("{\"typescript\":false,\"express\":true}");
    }

    @Test
    void pnpmAndYarnClassicDropThemWithTheirOwnCommands() {
        Map<String, String> commands = Map.of("express-dev-pnpm", "prune --prod", "express-dev-yarn", "install --production --frozen-lockfile");
        commands.forEach((fixture, command) -> {
            List<String> log = messages(fixture);
            assertThat(log).as(fixture).anyMatch(m -> m.startsWith("info Running ") && m.contains(command));
            assertThat(log).as(fixture).anyMatch(m -> m.startsWith("info Dropped dev dependencies: "));
            Path root = artifact(log);
            assertThat(Files.exists(root.resolve("node_modules/typescript"), LinkOption.NOFOLLOW_LINKS)).as(fixture).isFalse();
            assertThat(root.resolve("node_modules/express/package.json")).as(fixture).isRegularFile();
            assertThat(Apps.get(url(fixture)).body()).isEqualTo("fixture:" + fixture + "\n");
            assertThat(Apps.get(url(fixture) + "/modules").body()).isEqualTo("{\"typescript\":false,\"express\":true}");
        });
    }

    /** Plug'n'Play: the packages are zips in the app's .yarn/cache, and the focus drops typescript's. */
    @Test
    void yarnBerryFocusesOnTheProductionDependencies() throws IOException {
        List<String> log = messages("express-dev-berry");
        assertThat(log).anyMatch(m -> m.startsWith("info Running ") && m.contains("workspaces focus --production"));
        assertThat(log).anyMatch(m -> m.matches("info Dropped dev dependencies: \\d+\\.\\d MB → \\d+\\.\\d MB of packages.*"));
        Path cache = artifact(log).resolve(".yarn/cache");
        try (var zips = Files.list(cache)) {
            List<String> names = zips.map(p -> p.getFileName().toString()).toList();
            assertThat(names).anyMatch(n -> n.startsWith("express-npm-")).noneMatch(n -> n.startsWith("typescript-"));
        }
        assertThat(Apps.get(url("express-dev-berry")).body()).isEqualTo("fixture:express-dev-berry\n");
    }

    @Test
    void anAppThatNeedsADevDependencyToStartKeepsTheFullInstall() {
        List<String> log = messages("express-devdep-runtime");
        assertThat(log).anyMatch(m -> m.startsWith("warning Dev dependencies kept (")
                && m.contains("once pruned, it exited with code 1 before it answered HTTP"));
        // the pruned app's own words are in the log
        assertThat(log).anyMatch(m -> m.contains("Cannot find module 'dayjs'"));
        assertThat(log).noneMatch(m -> m.contains("Dropped dev dependencies"));
        Path root = artifact(log);
        assertThat(root.resolve("node_modules/dayjs/package.json")).isRegularFile();
        assertThat(root.resolve("node_modules/express/package.json")).isRegularFile();
        assertThat(Apps.get(url("express-devdep-runtime")).body()).isEqualTo("fixture:express-devdep-runtime 2020\n");
    }

    @Test
    void aNextStandaloneBuildIsItsServerWithStaticAssetsAndPublicFiles() {
        List<String> log = messages("next-standalone");
        assertThat(log).anyMatch(m -> m.matches("info Next standalone output: .* \\d+\\.\\d MB → \\d+\\.\\d MB"));
        assertThat(log).anyMatch(m -> m.contains("Start command: env HOSTNAME=127.0.0.1 node server.js"));
        Path root = artifact(log);
        assertThat(root.resolve("server.js")).isRegularFile();
        assertThat(root.resolve(".next/static")).isDirectory();
        assertThat(root.resolve("public/hello.txt")).isRegularFile();
        // sources, the build's cache and the full install are gone; the traced packages stay
        assertThat(root.resolve("app")).doesNotExist();
        assertThat(root.resolve(".next/standalone")).doesNotExist();
        assertThat(root.resolve("node_modules/next/package.json")).isRegularFile();
        assertThat(root.resolve("node_modules/typescript")).doesNotExist();

        String site = url("next-standalone");
        Http.Response home = Apps.get(site + "/");
        assertThat(home.status()).isEqualTo(200);
        assertThat(home.body()).contains("fixture:next-standalone");
        Matcher asset = Pattern.compile("(/_next/static/[^\"]+\\.js)\"").matcher(home.body());
        assertThat(asset.find()).as(home.body()).isTrue();
        Http.Response script = Apps.get(site + asset.group(1));
        assertThat(script.status()).isEqualTo(200);
        assertThat(script.body()).isNotEmpty();
        Http.Response pub = Apps.get(site + "/hello.txt");
        assertThat(pub.status()).isEqualTo(200);
        assertThat(pub.body()).isEqualTo("fixture:next-standalone public file\n");
    }

    @Test
    void aPrunedArtifactRedeploysAndRollsBack() {
        String project = deploys.runs().projectOf(migrations.get("express-dev"));
        String source = new String(FrameworksTest.fixture("express-dev").get("app.ts"), StandardCharsets.UTF_8);
        deploys.git().commit("artifacts/express-dev", "main",
                Map.of("app.ts", source.replace("\"fixture:express-dev\\n\"", "\"fixture:express-dev-v2\\n\"")), "v2");
        String second = deploys.runs().deploy(project);
        deploys.runs().await("deployments", second, "live", BUILD);
        assertThat(deploys.runs().messages("deployments", second)).anyMatch(m -> m.contains("Dropped dev dependencies"));
        assertThat(Apps.get(url("express-dev")).body()).isEqualTo("fixture:express-dev-v2\n");

        String first = deploys.runs().firstDeployment(project);
        var rollback = deploys.runs().http().send("POST", "/v1/deployments/" + first + "/rollback", null, null);
        assertThat(rollback.status()).as(rollback.body()).isEqualTo(201);
        deploys.runs().await("deployments", rollback.json().at("/data/id").asText(), "live", BUILD);
        assertThat(Apps.get(url("express-dev")).body()).isEqualTo("fixture:express-dev\n");
        assertThat(Apps.get(url("express-dev") + "/modules").body()).isEqualTo("{\"typescript\":false,\"express\":true}");
    }
}
