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
 * A rollback to an app that was stopped, whose build is still on the server, starts that build at once: it builds
 * nothing, so it does not wait for the only build slot while another project's build holds it.
 */
@EachStore
@EndToEnd
class ColdRollbackTest {
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
    void startsItsTargetsBuildWhileTheOnlySlotBuildsAnotherProject() {
        String suffix = kind.name().toLowerCase();
        String repoA = "acme/cold-a-" + suffix;
        String projectA = migrated(repoA, "v1");
        String first = runs.firstDeployment(projectA);
        // v3 replaces v2, which stays warm for a rollback, and stops v1
        for (String version : new String[] {"v2", "v3"}) {
            server.git().commit(repoA, "main", NodeApp.version(version), version);
            runs.awaitDeployment(runs.deploy(projectA), "live");
        }
        Await.until(Duration.ofSeconds(30), "v1's app to be stopped",
                () -> Runs.processesWithEnv(DEPLOYMENT_MARKER, first).isEmpty());
        String url = runs.http().get("/v1/projects/" + projectA).json().at("/data/url").asText();

        // the only slot builds another project, until the test opens its gate
        String repoB = "acme/cold-b-" + suffix;
        String projectB = migrated(repoB, "b1");
        String markerB = Runs.marker("cold-b");
        server.git().commit(repoB, "main", NodeApp.gatedBuild("b2", GATED_BUILD_MILLIS, markerB, GATE), "b2, slow");
        String buildingB = runs.deploy(projectB);
        Await.until(Runs.RUN, "project B's build to run", () -> !Runs.processesWithArg(markerB).isEmpty());

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

    /** A new repository holding the app at {@code version}, migrated: its project. */
    private static String migrated(String repo, String version) {
        server.git().createRepo(repo);
        server.git().commit(repo, "main", NodeApp.version(version), version);
        String migration = runs.migrate(repo);
        runs.awaitMigration(migration, "complete");
        return runs.projectOf(migration);
    }
}
