package dev.slipway.pipeline;

import com.fasterxml.jackson.databind.JsonNode;

import dev.slipway.testing.Apps;
import dev.slipway.testing.Await;
import dev.slipway.testing.EndToEnd;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Procfile's other processes ({@code worker:}, and any other name): each runs beside the app in a cell of its
 * own with the app's variables and no port, writes to the deployment's log under its name, starts again after a
 * crash, and stops with its deployment. H2 only.
 */
@EndToEnd
class WorkerTest {
    private static final String REPO = "workers/app";
    private static final Duration WAIT = Duration.ofSeconds(60);

    @RegisterExtension
    static final GitDeploys deploys = new GitDeploys();

    @Test
    void workersRunBesideTheAppRestartAfterACrashAndStopWithTheirDeployment() {
        Runs runs = deploys.runs();
        Map<String, String> files = NodeApp.version("v1");
        files.put("Procfile", "web: node server.js\nworker: node worker.js\nclock: node clock.js\n");
        // the worker crashes once it has said what it sees; the clock keeps running
        files.put("worker.js", "console.log('worker up, extra of ' + process.env.EXTRA.length + ' characters, port ' + (process.env.PORT || 'none'));\n"
                + "setTimeout(() => process.exit(2), 100);\n");
        files.put("clock.js", "console.log('clock up'); setInterval(() => {}, 1000);\n");
        deploys.git().createRepo(REPO);
        deploys.git().commit(REPO, "main", files, "v1");
        var created = runs.http().post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"" + REPO
                + "\",\"framework\":\"node-express\",\"env_vars\":{\"EXTRA\":\"from-env\"}}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        String migration = created.json().at("/data/id").asText();
        runs.awaitMigration(migration, "complete");
        String projectId = runs.projectOf(migration);
        String deployment = runs.firstDeployment(projectId);
        String url = runs.http().get("/v1/projects/" + projectId).json().at("/data/url").asText();
        assertThat(Apps.get(url).body()).startsWith("app:v1 ");

        Await.until(WAIT, "the worker's second start and the clock's first", () -> {
            List<String> log = runs.messages("deployments", deployment);
            return log.stream().filter(m -> m.equals("info [worker] worker up, extra of 8 characters, port none")).count() >= 2
                    && log.contains("info [clock] clock up");
        });
        List<String> log = runs.messages("deployments", deployment);
        assertThat(log).contains("info [worker] Process worker started: node worker.js", "info [clock] Process clock started: node clock.js")
                .anyMatch(m -> m.matches("error \\[worker] Process worker exited with code 2 after .+; restarting in .+ \\(crash 1 in a row\\)"))
                .noneMatch(m -> m.startsWith("error [clock]"));
        assertThat(Runs.processesWithEnv("SLIPWAY_DEPLOYMENT_ID", deployment)).as("the app and the clock").hasSizeGreaterThanOrEqualTo(2);
        JsonNode processes = runs.deployment(deployment).get("processes");
        assertThat(processes).as("the deployment read shows its processes").hasSize(3);
        assertThat(processes.get(0).get("type").asText() + " " + processes.get(0).get("state").asText()).isEqualTo("web running");
        assertThat(processes.get(1).get("type").asText()).isEqualTo("worker");
        assertThat(processes.get(1).get("restarts").asInt()).as("it crashed at least once").isPositive();
        assertThat(processes.get(2).get("type").asText() + " " + processes.get(2).get("state").asText() + " "
                + processes.get(2).get("restarts").asInt()).isEqualTo("clock running 0");

        deploys.server().slipway().engine().runtime().stop(deployment);
        Await.until(WAIT, "no process of the stopped deployment", () -> Runs.processesWithEnv("SLIPWAY_DEPLOYMENT_ID", deployment).isEmpty());
        assertThat(runs.deployment(deployment).get("processes")).as("nothing runs of it").isEmpty();
    }
}
