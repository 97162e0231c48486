package dev.slipway.pipeline;

import dev.slipway.store.Dialect;
import dev.slipway.testing.Apps;
import dev.slipway.testing.Await;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.JavaProcess;
import dev.slipway.testing.PreviousVersion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A downgrade: this version migrates the store and deploys, then the version before its newest schema change (built
 * from git history) starts on that store, as an operator rolling back an upgrade would. It serves what this version
 * deployed and deploys a new commit; then this version starts again and finds both.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.slipway.testing.TestStore#kinds")
@EndToEnd
class PreviousVersionTest {
    @Parameter
    Dialect kind;

    ProcessHarness harness;

    @BeforeEach
    void setUp() {
        harness = new ProcessHarness(kind, Map.of("SLIPWAY_HEALTH_TIMEOUT_SECONDS", "30"));
        harness.keepAppsPort(); // the same app URLs on each version
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        harness.close();
    }

    @Test
    void thePreviousVersionServesAndDeploysOnThisVersionsSchema() throws Exception {
        PreviousVersion.Build previous = PreviousVersion.get();
        String repo = "acme/downgrade-" + kind.name().toLowerCase();
        harness.git.createRepo(repo);
        harness.git.commit(repo, "main", app("this version"), "first");

        JavaProcess current = harness.start();
        Runs runs = new Runs(harness.http());
        String migration = runs.migrate(repo);
        runs.awaitMigration(migration, "complete");
        String project = runs.projectOf(migration);
        String first = runs.firstDeployment(project);
        String url = harness.http().get("/v1/projects/" + project).json().at("/data/url").asText();
        assertThat(Apps.get(url).body()).isEqualTo("app: this version");
        stop(current);

        JavaProcess old = harness.start(previous.classPath(), Map.of());
        runs = new Runs(harness.http());
        Await.until(Duration.ofSeconds(60), "the previous version to serve the app this one deployed",
                () -> "app: this version".equals(Apps.get(url).body()));
        assertThat(runs.deployment(first).get("status").asText()).isEqualTo("live");
        harness.git.commit(repo, "main", app("the previous version"), "second");
        String second = runs.deploy(project);
        runs.awaitDeployment(second, "live");
        assertThat(Apps.get(url).body()).as("deployed by the previous version (%s)", previous.commit())
                .isEqualTo("app: the previous version");
        stop(old);

        harness.start();
        runs = new Runs(harness.http());
        Await.until(Duration.ofSeconds(60), "this version to serve what the previous one deployed",
                () -> "app: the previous version".equals(Apps.get(url).body()));
        assertThat(runs.deployment(second).get("status").asText()).isEqualTo("live");
        assertThat(harness.http().get("/v1/projects/" + project).json().at("/data/production_deployment_id").asText())
                .as("production is what the previous version deployed").isEqualTo(second);
    }

    private static void stop(JavaProcess server) throws InterruptedException {
        server.process().toHandle().destroy();
        assertThat(server.waitForExit(Duration.ofSeconds(60))).as(server.output()).isNotEqualTo(-1);
    }

    private static Map<String, String> app(String text) {
        return Map.of("package.json", """
                        {"name": "downgrade", "version": "1.0.0", "private": true, "scripts": {"start": "node server.js"}}
                        """,
                "server.js", "require('http').createServer((q, s) => s.end('app: " + text + "')).listen(process.env.PORT);\n");
    }
}
