package dev.slipway.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.build.BuildSettings;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Alone;
import dev.slipway.testing.Apps;
import dev.slipway.testing.Await;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.GitServer;
import dev.slipway.testing.Http;
import dev.slipway.testing.JavaProcess;
import dev.slipway.testing.TestStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The server as a separate process, killed with SIGKILL while deployments build, then stopped with
 * SIGTERM while one builds: after each restart on the same store every run ends and none is lost. The kill
 * leaves the live apps running, and the next server adopts them (the same processes); the stop, told to stop
 * the apps too, leaves none, and the next server starts them again.
 */
@Alone
@ParameterizedClass(name = "{0}")
@MethodSource("dev.slipway.testing.TestStore#kinds")
@EndToEnd
class RestartTest {
    private static final String DEPLOYMENT_MARKER = "SLIPWAY_DEPLOYMENT_ID"; // runtime.local.LaunchCommand
    private static final int SLOW_BUILD_MILLIS = 12_000;
    private static final int GATED_BUILD_MILLIS = 180_000;
    /** b2's app listens only once the test opens this gate, at each of its starts. */
    private static final String START_GATE = "may-listen";

    @Parameter
    Dialect kind;

    ProcessHarness harness;
    GitServer git;
    TestStore store;
    JavaProcess server;
    Http http;
    Runs runs;

    @BeforeEach
    void setUp() {
        harness = new ProcessHarness(kind, Map.of("SLIPWAY_HEALTH_TIMEOUT_SECONDS", "15"));
        git = harness.git;
        store = harness.store;
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        harness.close();
    }

    /** Starts the server on the store; the first start prints the default account's key. */
    private void startServer() {
        server = harness.start();
        http = harness.http();
        runs = new Runs(http);
    }

    private String productionUrl(String projectId) {
        return http.get("/v1/projects/" + projectId).json().at("/data/url").asText();
    }

    private void awaitBuilding(String deploymentId, String marker) {
        Await.until(Runs.RUN, "deployment " + deploymentId + " to run its slow build",
                () -> !Runs.processesWithArg(marker).isEmpty());
        assertThat(runs.deployment(deploymentId).get("status").asText()).isEqualTo("building");
    }

    /** {@code /readyz}'s {@code recovery} once it is no longer {@code running}; it must be {@code done}. */
    private JsonNode awaitRecovery() {
        JsonNode recovery = Await.value(Duration.ofSeconds(60), "/readyz to say the start's recovery ended", () -> {
            JsonNode r = http.get("/readyz").json().get("recovery");
            return "running".equals(r.get("status").asText()) ? null : r;
        });
        assertThat(recovery.get("status").asText()).as(recovery.toString()).isEqualTo("done");
        return recovery;
    }

    private static Set<Long> appProcesses(String deploymentId) {
        return new HashSet<>(Runs.processesWithEnv(DEPLOYMENT_MARKER, deploymentId));
    }

    @Test
    void killedAndStoppedMidBuildResumesEverythingAndLeavesNoOrphans() throws Exception {
        String tag = kind.name().toLowerCase();
        String repoA = "acme/restart-a-" + tag, repoB = "acme/restart-b-" + tag, repoS = "acme/restart-s-" + tag;
        for (String r : List.of(repoA, repoB, repoS)) git.createRepo(r);
        git.commit(repoA, "main", NodeApp.version("a1"), "a1");
        git.commit(repoB, "main", NodeApp.version("b1"), "b1");
        String markerB = Runs.marker("restart-b2");
        String markerS = Runs.marker("restart-s1");
        // the builds killed with the server must still run when the next server resumes them, however
        // long its start takes here: they run until this gate opens
        String gate = "builds-may-finish";
        git.commit(repoS, "main", NodeApp.gatedBuild("s1", GATED_BUILD_MILLIS, markerS, gate), "s1, slow to build");

        startServer();
        String mA = runs.migrate(repoA);
        String mB = runs.migrate(repoB);
        runs.awaitMigration(mA, "complete");
        runs.awaitMigration(mB, "complete");
        String projectA = runs.projectOf(mA), projectB = runs.projectOf(mB);
        String a1 = runs.firstDeployment(projectA), b1 = runs.firstDeployment(projectB);

        // two slow builds at once (a deployment and a migration), and one deployment queued behind one of them
        git.commit(repoB, "main", NodeApp.gatedStart(NodeApp.gatedBuild("b2", GATED_BUILD_MILLIS, markerB, gate), START_GATE),
                "b2, slow to build, and gated at its start");
        String b2 = runs.deploy(projectB);
        String mS = runs.migrate(repoS);
        String projectS = runs.projectOf(mS);
        String s1 = runs.firstDeployment(projectS);
        String s2 = runs.deploy(projectS);
        awaitBuilding(b2, markerB);
        awaitBuilding(s1, markerS);
        assertThat(runs.migration(mS).get("status").asText()).isEqualTo("processing");
        assertThat(runs.deployment(s2).get("status").asText()).isEqualTo("queued");

        Set<Long> a1Processes = appProcesses(a1), b1Processes = appProcesses(b1);
        Set<Long> firstRunApps = new HashSet<>();
        firstRunApps.addAll(a1Processes);
        firstRunApps.addAll(b1Processes);
        assertThat(firstRunApps).as("the live apps' processes").isNotEmpty();
        Set<Long> firstRunBuilds = new HashSet<>(Runs.processesWithArg(markerB));
        firstRunBuilds.addAll(Runs.processesWithArg(markerS));

        // SIGKILL: the server gets no chance to stop anything; its apps and builds are orphaned
        server.process().destroyForcibly();
        assertThat(server.waitForExit(Duration.ofSeconds(30))).isEqualTo(137);
        assertThat(firstRunApps).as("orphaned apps still run right after the kill").allMatch(Runs::alive);

        long restarted = System.nanoTime();
        startServer();
        JsonNode adopting = awaitRecovery();
        assertThat(adopting.get("apps_adopted").asInt()).as("a1 and b1 adopted: " + adopting).isEqualTo(2);
        assertThat(adopting.get("apps_started").asInt()).as(adopting.toString()).isZero();
        // the apps that were live answer through the router again within 30 s
        Await.until(Duration.ofSeconds(30), "app a to answer after the restart",
                () -> Apps.get(productionUrl(projectA)).body().startsWith("app:a1"));
        Await.until(Duration.ofSeconds(30), "app b to answer after the restart",
                () -> Apps.get(productionUrl(projectB)).body().startsWith("app:b"));
        assertThat(Duration.ofNanos(System.nanoTime() - restarted)).isLessThan(Duration.ofSeconds(40));
        // the interrupted builds resume at once (not when their leases expire), after stopping the
        // build processes the killed server left (they would run until the gate opens)
        for (String d : List.of(b2, s1)) {
            Await.until(Duration.ofSeconds(10), d + " to resume", () -> runs.messages("deployments", d).stream()
                    .anyMatch(m -> m.startsWith("warning Resuming after the server running this deployment stopped")));
            Await.until(Duration.ofSeconds(10), d + " to stop the build processes left", () -> runs.messages("deployments", d)
                    .stream().anyMatch(m -> m.matches("info Stopped \\d+ build process\\(es\\) left by the interrupted attempt")));
        }
        assertThat(firstRunBuilds).as("build processes of the killed server").noneMatch(Runs::alive);
        assertThat(appProcesses(a1)).as("a1 adopted as it ran").isEqualTo(a1Processes);
        assertThat(appProcesses(b1)).as("b1 adopted as it ran").isEqualTo(b1Processes);
        // the resumed attempts may finish now, and so may s2 (s1's commit again) when its turn comes
        Await.until(Runs.RUN, "the gated builds to finish once their gates are open", () -> {
            Runs.openGates(gate, markerB, markerS);
            return Set.of("deploying", "live", "failed").containsAll(List.of(runs.deployment(b2).get("status").asText(),
                    runs.deployment(s1).get("status").asText(), runs.deployment(s2).get("status").asText()));
        });

        JsonNode b2Run = Await.value(Runs.RUN, "b2 to end once its start gate is open", () -> {
            Runs.openStartGates(DEPLOYMENT_MARKER, b2, START_GATE);
            JsonNode d = runs.deployment(b2);
            return Set.of("live", "failed").contains(d.get("status").asText()) ? d : null;
        });
        assertThat(b2Run.get("status").asText()).as(b2Run.toString()).isEqualTo("live");
        runs.awaitMigration(mS, "complete");
        runs.awaitDeployment(s1, "live");
        runs.awaitDeployment(s2, "live");
        assertThat(Apps.get(productionUrl(projectB)).body()).startsWith("app:b2");
        assertThat(Apps.get(productionUrl(projectS)).body()).startsWith("app:s1");
        assertNothingRunningAndNothingLost(Map.of(mA, "complete", mB, "complete", mS, "complete"),
                Map.of(a1, "live", b1, "live", b2, "live", s1, "live", s2, "live"));
        assertOneProcessGroupPerApp(List.of(b2, s1, s2), firstRunApps);
        assertThat(appProcesses(a1)).as("a1 still the process the killed server started").isEqualTo(a1Processes);
        // the first attempts' workspaces were deleted at the restart; the second attempts moved theirs
        assertThat(BuildSettings.defaults(store.dataDir().resolve("data")).workspacesDir())
                .as("workspaces left by the killed server's builds").isEmptyDirectory();

        // SIGTERM while a build runs: the job is left to be resumed, not finished
        String markerA = Runs.marker("restart-a2");
        git.commit(repoA, "main", NodeApp.slowBuild("a2", SLOW_BUILD_MILLIS, markerA), "a2, slow to build");
        String a2 = runs.deploy(projectA);
        awaitBuilding(a2, markerA);
        Set<Long> secondRunApps = new HashSet<>();
        for (String d : List.of(a1, b1, b2, s1, s2)) secondRunApps.addAll(appProcesses(d));
        server.process().toHandle().destroy();
        assertThat(server.waitForExit(Duration.ofSeconds(60))).isEqualTo(143);
        Await.until(Duration.ofSeconds(15), "a stopped server's apps and build to be gone",
                () -> secondRunApps.stream().noneMatch(Runs::alive) && Runs.processesWithArg(markerA).isEmpty());

        startServer();
        // the stopped apps are started again by the start's recovery, which runs until b2's app, gated, listens
        var during = Await.value(Duration.ofSeconds(60), "the recovery to start b2's app again", () ->
                Runs.processesWithEnv(DEPLOYMENT_MARKER, b2).isEmpty() ? null : http.get("/readyz"));
        assertThat(during.json().at("/recovery/status").asText()).as(during.body()).isEqualTo("running");
        assertThat(during.status()).as("a running recovery fails no check: " + during.body()).isEqualTo(200);
        assertThat(during.json().get("status").asText()).as(during.body()).isEqualTo("ready");
        Await.until(Duration.ofSeconds(10), "b2's start gate to open",
                () -> Runs.openStartGates(DEPLOYMENT_MARKER, b2, START_GATE) > 0);
        // once /readyz says it is done, they answer
        JsonNode starting = awaitRecovery();
        assertThat(starting.get("apps_adopted").asInt()).as(starting.toString()).isZero();
        assertThat(starting.get("apps_started").asInt()).as("b2 and s2 at least: " + starting).isGreaterThanOrEqualTo(2);
        assertThat(starting.get("apps_not_healthy").asInt()).as(starting.toString()).isZero();
        assertThat(Apps.get(productionUrl(projectB)).body()).startsWith("app:b2");
        assertThat(Apps.get(productionUrl(projectS)).body()).startsWith("app:s1");
        runs.awaitDeployment(a2, "live");
        assertThat(Apps.get(productionUrl(projectA)).body()).startsWith("app:a2");
        assertNothingRunningAndNothingLost(Map.of(mA, "complete", mB, "complete", mS, "complete"),
                Map.of(a1, "live", a2, "live", b1, "live", b2, "live", s1, "live", s2, "live"));
        assertOneProcessGroupPerApp(List.of(a1, a2, b1, b2, s1, s2), secondRunApps);
    }

    /** Every run has the expected final status, and the lists hold exactly the runs created. */
    private void assertNothingRunningAndNothingLost(Map<String, String> migrations, Map<String, String> deployments) {
        migrations.forEach((id, status) -> assertThat(runs.migration(id).get("status").asText()).as(id).isEqualTo(status));
        deployments.forEach((id, status) -> assertThat(runs.deployment(id).get("status").asText()).as(id).isEqualTo(status));
        assertThat(ids("/v1/migrations?limit=100")).containsExactlyInAnyOrderElementsOf(migrations.keySet());
        assertThat(ids("/v1/deployments?limit=100")).containsExactlyInAnyOrderElementsOf(deployments.keySet());
        for (String status : List.of("pending", "processing")) {
            assertThat(ids("/v1/migrations?status=" + status)).isEmpty();
        }
        for (String status : List.of("queued", "building", "deploying")) {
            assertThat(ids("/v1/deployments?status=" + status)).isEmpty();
        }
    }

    /** Each live app runs (in one process group of this server's run), and none is a process of the earlier run. */
    private void assertOneProcessGroupPerApp(List<String> deploymentIds, Set<Long> earlier) {
        for (String id : deploymentIds) {
            Set<Long> pids = Await.value(Duration.ofSeconds(30), "the app of " + id + " to run", () -> {
                Set<Long> now = appProcesses(id);
                return now.isEmpty() ? null : now;
            });
            assertThat(pids).as("processes of " + id).doesNotContainAnyElementsOf(earlier);
        }
    }

    private List<String> ids(String path) {
        var r = http.get(path);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        assertThat(r.json().at("/pagination/has_more").asBoolean()).isFalse();
        List<String> out = new ArrayList<>();
        for (JsonNode n : r.json().get("data")) out.add(n.get("id").asText());
        return out;
    }
}
