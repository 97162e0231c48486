package dev.slipway.pipeline;

import dev.slipway.accounts.Tier;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Apps;
import dev.slipway.testing.Await;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.ServerPerStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A rollback builds nothing, so it waits for no worker, not even when the only build slot is busy with another
 * project's build: to an app still running it is a route switch made before the POST answers, and to a stopped app
 * whose build is on the server a start of that build begun at once. It still runs after the project's own earlier
 * deployments.
 */
@EachStore
@EndToEnd
class RollbackAtOnceTest {
    private static final int GATED_BUILD_MILLIS = 120_000;
    private static final String GATE = "gate-open";
    private static final String DEPLOYMENT_MARKER = "SLIPWAY_DEPLOYMENT_ID"; // runtime.local.LaunchCommand

    final Dialect kind = server.kind();

    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.withGit(c -> c.buildSlots(1));
    static Runs runs;

    @EachStore.Before
    static void start() {
        runs = new Runs(server.tenant(Tier.TEAM).http());
    }

    @Test
    void switchesBeforeItsAnswerWhileTheOnlySlotBuildsAndQueuesBehindItsOwnProject() {
        App a = migratedApp("warm-a");
        String first = a.first();
        server.git().commit(a.repo(), "main", NodeApp.version("v2"), "v2");
        String second = runs.deploy(a.project());
        runs.awaitDeployment(second, "live");
        String url = a.url();
        assertThat(Apps.get(url).body()).startsWith("app:v2");

        Holder b = holdTheOnlySlot(repo("warm-b"));
        String markerB = b.marker(), buildingB = b.deployment();

        // the first request after the 201 is answered by the target
        var rollback = runs.http().send("POST", "/v1/deployments/" + first + "/rollback", null, null);
        assertThat(rollback.status()).as(rollback.body()).isEqualTo(201);
        assertThat(Apps.get(url).body()).startsWith("app:v1");
        String third = rollback.json().at("/data/id").asText();
        runs.await("deployments", third, "live", Duration.ofSeconds(30));
        assertThat(runs.deployment(buildingB).get("status").asText()).isEqualTo("building");
        assertThat(runs.deployment(second).get("status").asText()).isEqualTo("rolled_back");
        assertThat(runs.messages("deployments", third))
                .anyMatch(m -> m.startsWith("info Rollback queued: redeploying " + first))
                .anyMatch(m -> m.contains("(no rebuild)"))
                .anyMatch(m -> m.contains("Switching to the still-running app of " + first))
                .noneMatch(m -> m.contains("Build started"));

        // behind its own project's queued deployment, a rollback waits: nothing switches before its turn
        String markerA = Runs.marker("warm-a");
        server.git().commit(a.repo(), "main", NodeApp.gatedBuild("v3", GATED_BUILD_MILLIS, markerA, GATE), "v3, slow");
        String fourth = runs.deploy(a.project());
        var behind = runs.http().send("POST", "/v1/deployments/" + second + "/rollback", null, null);
        assertThat(behind.status()).as(behind.body()).isEqualTo(201);
        String fifth = behind.json().at("/data/id").asText();
        assertThat(Apps.get(url).body()).startsWith("app:v1");
        assertThat(runs.deployment(fifth).get("status").asText()).isEqualTo("queued");

        // the gates open: B's build, then A's, then the rollback, in that order
        Await.until(Runs.RUN, "the queued rollback to go live", () -> {
            Runs.openGates(GATE, markerB, markerA);
            return runs.deployment(fifth).get("status").asText().equals("live");
        });
        assertThat(runs.deployment(buildingB).get("status").asText()).isEqualTo("live");
        assertThat(runs.deployment(fourth).get("status").asText()).isEqualTo("live"); // it went live before the rollback
        assertThat(runs.deployment(third).get("status").asText()).isEqualTo("rolled_back"); // production at the POST
        assertThat(runs.http().get("/v1/projects/" + a.project()).json().at("/data/production_deployment_id").asText())
                .isEqualTo(fifth);
        assertThat(Apps.get(url).body()).startsWith("app:v2");
    }

    @Test
    void aStoppedTargetsBuildStartsAtOnceWhileTheOnlySlotBuildsAnotherProject() {
        App a = migratedApp("cold-a");
        String first = a.first();
        // v3 replaces v2, which stays warm for a rollback, and stops v1
        for (String version : new String[] {"v2", "v3"}) {
            server.git().commit(a.repo(), "main", NodeApp.version(version), version);
            runs.awaitDeployment(runs.deploy(a.project()), "live");
        }
        Await.until(Duration.ofSeconds(30), "v1's app to be stopped",
                () -> Runs.processesWithEnv(DEPLOYMENT_MARKER, first).isEmpty());
        String url = a.url();

        Holder b = holdTheOnlySlot(repo("cold-b"));
        String markerB = b.marker(), buildingB = b.deployment();

        var rollback = runs.http().send("POST", "/v1/deployments/" + first + "/rollback", null, null);
        assertThat(rollback.status()).as(rollback.body()).isEqualTo(201);
        String fourth = rollback.json().at("/data/id").asText();
        var live = runs.await("deployments", fourth, "live", Duration.ofSeconds(60));
        assertThat(live.get("rollback_of").asText()).isEqualTo(first);
        assertThat(runs.deployment(buildingB).get("status").asText()).as("B's build still holds the only slot").isEqualTo("building");
        assertThat(Apps.get(url).body()).startsWith("app:v1");
        assertThat(runs.messages("deployments", fourth))
                .anyMatch(m -> m.contains("(no rebuild)"))
                .noneMatch(m -> m.contains("Switching to the still-running app"))
                .noneMatch(m -> m.contains("Build started"));

        Await.until(Runs.RUN, "B's build to go live once its gate is open", () -> {
            Runs.openGates(GATE, markerB);
            return runs.deployment(buildingB).get("status").asText().equals("live");
        });
    }

    /** A migrated project of the app at v1: its repository, its first deployment and its URL. */
    private record App(String repo, String project, String first, String url) {}

    private App migratedApp(String name) {
        String repo = repo(name);
        String project = migrated(repo, "v1");
        return new App(repo, project, runs.firstDeployment(project),
                runs.http().get("/v1/projects/" + project).json().at("/data/url").asText());
    }

    /** A repository name of its own for this store. */
    private String repo(String name) {
        return "acme/" + name + "-" + kind.name().toLowerCase();
    }

    /** A build of another project, running in the only slot until the test opens its gate. */
    private record Holder(String deployment, String marker) {}

    private static Holder holdTheOnlySlot(String repo) {
        String project = migrated(repo, "b1");
        String marker = Runs.marker(repo.substring(repo.indexOf('/') + 1));
        server.git().commit(repo, "main", NodeApp.gatedBuild("b2", GATED_BUILD_MILLIS, marker, GATE), "b2, slow");
        String building = runs.deploy(project);
        Await.until(Runs.RUN, "project B's build to run", () -> !Runs.processesWithArg(marker).isEmpty());
        return new Holder(building, marker);
    }

    /** A new repository holding the app at {@code version}, migrated: its project. */
    private static String migrated(String repo, String version) {
        server.git().createRepo(repo);
        server.git().commit(repo, "main", NodeApp.version(version), version);
        String migration = runs.migrate(repo);
        runs.awaitMigration(migration, "complete");
        return runs.projectOf(migration);
    }
}
