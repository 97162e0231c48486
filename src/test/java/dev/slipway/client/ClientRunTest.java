package dev.slipway.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.client.logs.LogLines;
import dev.slipway.testing.Apps;
import dev.slipway.testing.Await;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.ServerPerStore;
import dev.slipway.testing.Statuses;
import dev.slipway.testing.TestServer;
import dev.slipway.testing.Zips;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** The slipway client against a real server, real git host, real builds and real apps: runs, exit codes, retries. */
@EachStore
@Timeout(value = 4, unit = TimeUnit.MINUTES)
@EndToEnd
class ClientRunTest {
    private static final Pattern DEPLOYMENT_ID = Pattern.compile("dep_[0-9a-z]{26}");
    private static final Pattern LOG_LINE = Pattern.compile("^\\d{4}-\\d\\d-\\d\\dT\\S+Z (info   |success|warning|error  ) .*");

    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.withGit();
    static TestServer.Tenant tenant;
    static Map<String, String> env;

    @EachStore.Before
    static void start() {
        tenant = server.tenant(Tier.TEAM);
        env = Map.of("SLIPWAY_API_URL", server.baseUrl(), "SLIPWAY_API_KEY", tenant.key());
    }

    /** A repository with {@code files} on main, and a project for it created through the API (nothing deployed). */
    static String project(String name, Map<String, String> files) {
        String repo = "acme/" + name + "-" + UUID.randomUUID().toString().substring(0, 8);
        server.git().createRepo(repo);
        server.git().commit(repo, "main", files, "init " + name);
        var r = tenant.http().post("/v1/projects", "{\"source\":\"github\",\"repo\":\"" + repo + "\",\"framework\":\"node-express\"}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().at("/data/id").asText();
    }

    static JsonNode api(String path) {
        var r = tenant.http().get(path);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.json().get("data");
    }

    static String deploymentId(String text) {
        Matcher m = DEPLOYMENT_ID.matcher(text);
        assertThat(m.find()).as("a deployment id in: " + text).isTrue();
        return m.group();
    }

    static List<String> lines(String text) {
        return text.isEmpty() ? List.of() : List.of(text.split("\n"));
    }

    @Test
    void migrateWaitThenDeployFollowThenRollBackWait() {
        String repo = "acme/web-" + UUID.randomUUID().toString().substring(0, 8);
        server.git().createRepo(repo);
        server.git().commit(repo, "main", ClientApps.version("v1"), "First version");

        Cli.Result migrated = Cli.run(env, "migrate", "--source", "github", "--repo", repo, "--framework", "node-express",
                "--env", "EXTRA=from-migrate", "--instance-type", "standard", "--wait", "--output", "json");
        assertThat(migrated.exit()).as(migrated.toString()).isEqualTo(0);
        JsonNode migration = migrated.json();
        assertThat(migration.get("status").asText()).isEqualTo("complete");
        assertThat(migration.get("id").asText()).startsWith("mig_");
        assertThat(migration).isEqualTo(api("/v1/migrations/" + migration.get("id").asText()));
        // not a terminal: plain timestamped status lines on stderr, ending complete
        assertThat(lines(migrated.err())).anyMatch(l -> l.matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ migration mig_\\S+ complete"));
        String projectId = migration.get("project_id").asText();
        String first = migration.get("deployment_id").asText();
        String production = migration.get("url").asText();
        assertThat(Apps.get(production).body()).isEqualTo("app:v1 extra:from-migrate");
        assertThat(api("/v1/deployments/" + first).get("instance_type").asText()).isEqualTo("standard");

        server.git().commit(repo, "main", ClientApps.version("v2"), "Second version");
        Cli.Result deployed = Cli.run(env, "deploy", "--project", projectId, "--env", "EXTRA=override", "--follow");
        assertThat(deployed.exit()).as(deployed.toString()).isEqualTo(0);
        String second = deploymentId(deployed.out());
        List<String> out = lines(deployed.out());
        assertThat(out.get(0)).isEqualTo("Deployment " + second + " queued (project " + projectId + ")");
        List<String> logLines = out.subList(1, out.size() - 1);
        assertThat(logLines).isNotEmpty().allMatch(l -> LOG_LINE.matcher(l).matches());
        assertThat(logLines).anyMatch(l -> l.contains("Build started")).anyMatch(l -> l.contains("success") && l.contains("Deployment is live"));
        assertThat(out.getLast()).isEqualTo("Deployment " + second + " is live in production: " + production);
        assertThat(Apps.get(production).body()).isEqualTo("app:v2 extra:override");
        JsonNode secondDep = api("/v1/deployments/" + second);
        assertThat(secondDep.get("commit_message").asText()).isEqualTo("Second version");
        assertThat(secondDep.get("instance_type").asText()).as("production's type is kept").isEqualTo("standard");

        Cli.Result live = Cli.run(env, "deployments", "list", "--project", projectId, "--status", "live", "--output", "json");
        assertThat(live.exit()).as(live.toString()).isEqualTo(0);
        List<String> liveIds = new ArrayList<>();
        live.json().forEach(d -> {
            assertThat(d.get("status").asText()).isEqualTo("live");
            liveIds.add(d.get("id").asText());
        });
        assertThat(liveIds).containsExactly(second, first);

        Cli.Result rolledBack = Cli.run(env, "rollback", first, "--wait");
        assertThat(rolledBack.exit()).as(rolledBack.toString()).isEqualTo(0);
        // a rollback is a route switch: the wait must not sit out a long-poll that started after it went live
        assertThat(rolledBack.took()).isLessThan(Duration.ofSeconds(15));
        String third = deploymentId(rolledBack.out());
        assertThat(lines(rolledBack.out()).get(0)).isEqualTo("Rollback " + third + " queued: production goes back to "
                + first + " (from " + second + ")");
        assertThat(lines(rolledBack.out()).getLast()).isEqualTo("Deployment " + third + " is live in production: " + production);
        assertThat(Apps.get(production).body()).isEqualTo("app:v1 extra:from-migrate");

        Cli.Result show = Cli.run(env, "deployments", "show", third, "--output", "json");
        assertThat(show.exit()).isEqualTo(0);
        assertThat(show.json()).isEqualTo(api("/v1/deployments/" + third));
        assertThat(show.json().get("rollback_of").asText()).isEqualTo(first);
        Cli.Result text = Cli.run(env, "deployments", "show", third);
        assertThat(lines(text.out())).anyMatch(l -> l.matches("status\\s+live")).anyMatch(l -> l.matches("rollback_of\\s+" + first));

        Cli.Result migrations = Cli.run(env, "migrations", "list", "--status", "complete", "--output", "json");
        assertThat(migrations.exit()).isEqualTo(0);
        assertThat(migrations.json().findValuesAsText("id")).contains(migration.get("id").asText());
    }

    @Test
    void aFailedDeployExitsOneAndShowsTheFailure() {
        String projectId = project("broken", ClientApps.failingBuild());
        Cli.Result r = Cli.run(env, "deploy", "--project", projectId, "--wait", "--output", "json");
        assertThat(r.exit()).as(r.toString()).isEqualTo(1);
        JsonNode d = r.json();
        assertThat(d.get("status").asText()).isEqualTo("failed");
        assertThat(d).isEqualTo(api("/v1/deployments/" + d.get("id").asText()));
        assertThat(r.err()).contains("Deployment " + d.get("id").asText() + " failed.")
                .contains("compile error in src/app.js line 7");
        List<String> tail = lines(r.err()).stream().dropWhile(l -> !l.startsWith("Last ")).skip(1).toList();
        assertThat(tail).isNotEmpty().allMatch(l -> LOG_LINE.matcher(l.strip()).matches());
        assertThat(tail.getLast()).contains("error").contains("Deployment failed");
    }

    @Test
    void aTimeoutExitsThreeAndCancelStopsTheBuild() {
        String projectId = project("slow", ClientApps.slowBuild());
        Cli.Result r = Cli.run(env, "deploy", "--project", projectId, "--wait", "--timeout", "2s");
        assertThat(r.exit()).as(r.toString()).isEqualTo(3);
        assertThat(r.took()).isBetween(Duration.ofSeconds(2), Duration.ofSeconds(15));
        String id = deploymentId(r.out());
        assertThat(r.err()).contains("timed out after 2s waiting for deployment " + id)
                .contains("'slipway cancel " + id + "' stops it");
        assertThat(api("/v1/deployments/" + id).get("status").asText()).isIn("queued", "building");

        Cli.Result cancelled = Cli.run(env, "cancel", id);
        assertThat(cancelled.exit()).as(cancelled.toString()).isEqualTo(0);
        assertThat(cancelled.out()).startsWith("Cancelled " + id);
        // on PostgreSQL this can take until the job's lease expires (30 s): the cancel interrupts the build
        // thread inside a JDBC call, which breaks its connection (a server-side issue, reported)
        Await.until(Duration.ofSeconds(60), "the cancelled deployment to fail",
                () -> api("/v1/deployments/" + id + "?wait=5").get("status").asText().equals("failed"));
        Cli.Result again = Cli.run(env, "cancel", id);
        assertThat(again.exit()).as(again.toString()).isEqualTo(4);
        assertThat(again.err()).contains("API error invalid_state (HTTP 409)").contains("[request req_");
    }

    /** Long-polls a deployment until it is live (a long-poll answers at a change of status, so read once first). */
    static void awaitLive(String id) {
        Statuses.await(tenant.http(), "deployments", id, "live", Duration.ofSeconds(120));
    }

    @Test
    void aPostWhoseAnswerIsLostIsRetriedWithTheSameKeyAndDeploysOnce() {
        String projectId = project("flaky", ClientApps.version("flaky"));
        try (FlakyProxy proxy = FlakyProxy.to(server.baseUrl())) {
            proxy.inject("POST /v1/deployments", FlakyProxy.Fault.DROP_ANSWER, 1);
            Map<String, String> viaProxy = Map.of("SLIPWAY_API_URL", proxy.baseUrl() + "/v1/", "SLIPWAY_API_KEY", tenant.key());
            Cli.Result r = Cli.run(viaProxy, "deploy", "--project", projectId, "--output", "json");
            assertThat(r.exit()).as(r.toString()).isEqualTo(0);
            String id = r.json().get("id").asText();
            List<FlakyProxy.Seen> posts = proxy.seen().stream().filter(s -> s.method().equals("POST")).toList();
            assertThat(posts).hasSize(2);
            assertThat(posts.get(0).idempotencyKey()).isNotBlank().isEqualTo(posts.get(1).idempotencyKey());
            assertThat(posts.get(0).status()).isEqualTo(201);
            assertThat(posts.get(1).replayed()).isEqualTo("true");
            assertThat(r.err()).contains("POST /deployments:").contains("retrying in");
            JsonNode all = api("/v1/deployments?project_id=" + projectId);
            assertThat(all.size()).isEqualTo(1);
            assertThat(all.get(0).get("id").asText()).isEqualTo(id);

            // a 5xx on a read is retried too
            proxy.inject("GET /v1/deployments/", FlakyProxy.Fault.UNAVAILABLE, 2);
            Cli.Result shown = Cli.run(viaProxy, "deployments", "show", id, "--output", "json");
            assertThat(shown.exit()).as(shown.toString()).isEqualTo(0);
            assertThat(shown.json().get("id").asText()).isEqualTo(id);
            assertThat(shown.err()).contains("internal_error (HTTP 503); retrying in").contains("(try 3/5)");

            // a separate command is a separate logical operation: a new key, a new deployment
            Cli.Result again = Cli.run(viaProxy, "deploy", "--project", projectId, "--output", "json");
            assertThat(again.exit()).isEqualTo(0);
            assertThat(proxy.seen().stream().filter(s -> s.method().equals("POST")).map(FlakyProxy.Seen::idempotencyKey).distinct()).hasSize(2);
            awaitLive(id);
            awaitLive(again.json().get("id").asText());
            assertThat(api("/v1/deployments?project_id=" + projectId).size()).isEqualTo(2);
        }
    }

    @Test
    void migrateAZipEndToEnd() throws Exception {
        Path zip = Files.createTempFile("slipway-client-", ".zip");
        try {
            Files.write(zip, Zips.of(ClientApps.version("zipped")));
            Cli.Result r = Cli.run(env, "migrate", "--zip", zip.toString(), "--framework", "node-express", "--wait", "--output", "json");
            assertThat(r.exit()).as(r.toString()).isEqualTo(0);
            JsonNode m = r.json();
            assertThat(m.get("source").asText()).isEqualTo("zip");
            assertThat(m.get("status").asText()).isEqualTo("complete");
            assertThat(r.err()).containsPattern("Uploaded " + Pattern.quote(zip.toString()) + " \\(\\d+ bytes, sha256 [0-9a-f]{64}\\) as upl_");
            assertThat(Apps.get(m.get("url").asText()).body()).isEqualTo("app:zipped extra:-");
        } finally {
            Files.deleteIfExists(zip);
        }
    }

    @Test
    void logsFollowStreamsADeploymentForAsLongAsItServes() throws Exception {
        String projectId = project("logs", ClientApps.version("logs"));
        Cli.Result started = Cli.run(env, "deploy", "--project", projectId, "--output", "json");
        assertThat(started.exit()).isEqualTo(0);
        JsonNode created = started.json();
        assertThat(created.get("status").asText()).isEqualTo("queued");
        String id = created.get("id").asText();

        CompletableFuture<Cli.Result> following = CompletableFuture.supplyAsync(() -> Cli.run(env, "logs", id, "--follow"));
        Await.until(Duration.ofMinutes(2), id + " live", () -> api("/v1/deployments/" + id).get("status").asText().equals("live"));
        assertThat(following).as("the follow stays open while the deployment serves").isNotDone();
        // production moves on: the first deployment serves no more, and its stream ends
        Cli.Result next = Cli.run(env, "deploy", "--project", projectId, "--wait");
        assertThat(next.exit()).as(next.toString()).isEqualTo(0);
        Cli.Result followed = following.get(2, TimeUnit.MINUTES);
        assertThat(followed.exit()).as(followed.toString()).isEqualTo(0);
        List<String> streamed = lines(followed.out());
        assertThat(streamed).isNotEmpty().allMatch(l -> LOG_LINE.matcher(l).matches());
        assertThat(streamed).anyMatch(l -> l.contains("Deployment is live"));
        // the stream held every entry up to its end, in order (its app, kept warm for a rollback, may write more later)
        Cli.Result all = Cli.run(env, "logs", id, "--output", "json");
        List<String> expected = new ArrayList<>();
        all.json().get("logs").forEach(e -> expected.add(LogLines.format(e)));
        assertThat(expected.size()).isGreaterThanOrEqualTo(streamed.size());
        assertThat(streamed).isEqualTo(expected.subList(0, streamed.size()));
        assertThat(lines(Cli.run(env, "logs", id).out())).startsWith(streamed.toArray(String[]::new));
    }
}
