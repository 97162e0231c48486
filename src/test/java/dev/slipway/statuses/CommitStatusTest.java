package dev.slipway.statuses;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.testing.Await;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.ServerPerStore;
import dev.slipway.testing.Statuses;
import dev.slipway.testing.TestServer;
import dev.slipway.testing.WebhookReceiver;
import dev.slipway.webhooks.WebhookSettings;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Deployments of a private repository reported back as commit statuses, to a local server playing GitHub's
 * statuses API (no git host is reachable here): the token, the path, the states and addresses GitHub documents,
 * a retry after a 5xx, a token without the scope logged, and {@code commit_statuses: false} sending nothing.
 */
@EachStore
@EndToEnd
class CommitStatusTest {
    private static final Duration RUN = Duration.ofSeconds(120);
    static final WebhookReceiver github = WebhookReceiver.start();
    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.withGit(c -> c.gitApis("github=" + github.url("/gh"))
            .webhooks(new WebhookSettings(false, List.of(Duration.ofMillis(300), Duration.ofMillis(600), Duration.ofSeconds(1)))));
    static TestServer.Tenant tenant;

    @AfterAll
    static void stopReceiver() {
        github.close();
    }

    @EachStore.Before
    static void start() {
        tenant = server.tenant(Tier.TEAM);
    }

    static Map<String, String> site(String content) {
        return Map.of("index.html", "<!doctype html><title>" + content + "</title><p>" + content + "</p>");
    }

    record Repo(String name, String token) {
        String statuses(String sha) { return "/gh/repos/" + name + "/statuses/" + sha; }
    }

    Repo privateRepo(String name) {
        String repo = "acme/" + name + "-" + server.kind().name().toLowerCase() + "-" + UUID.randomUUID().toString().substring(0, 6);
        String token = "ghp_" + UUID.randomUUID().toString().replace("-", "");
        server.git().createRepo(repo);
        server.git().makePrivate(repo, null, token);
        return new Repo(repo, token);
    }

    static String migrate(Repo repo) {
        var r = tenant.http().post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"" + repo.name()
                + "\",\"framework\":\"static\",\"git_credentials\":{\"token\":\"" + repo.token() + "\"}}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return Statuses.await(tenant.http(), "migrations", r.json().at("/data/id").asText(), "complete", RUN).get("project_id").asText();
    }

    static String deploy(String body) {
        var r = tenant.http().post("/v1/deployments", body);
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().at("/data/id").asText();
    }

    static JsonNode deployment(String id) {
        return tenant.http().get("/v1/deployments/" + id).json().get("data");
    }

    static WebhookReceiver.Received awaitState(String path, String state) {
        return github.await(RUN, "a " + state + " status at " + path,
                r -> path.equals(r.header("x-receiver-path")) && state.equals(r.json().path("state").asText()));
    }

    @Test
    void eachDeploymentIsReportedWithItsStateAndAddressAndRetriedAfterA5xx() {
        Repo repo = privateRepo("statuses");
        String v1 = server.git().commit(repo.name(), "main", site("statuses v1"), "v1");
        AtomicInteger refused = new AtomicInteger();
        github.answer(r -> r.header("x-receiver-path").equals(repo.statuses(v1)) && refused.getAndIncrement() == 0 ? 503 : 201);
        String projectId = migrate(repo);
        JsonNode live = deployment(tenant.http().get("/v1/projects/" + projectId).json().at("/data/production_deployment_id").asText());

        WebhookReceiver.Received success = awaitState(repo.statuses(v1), "success");
        assertThat(success.header("authorization")).isEqualTo("token " + repo.token());
        assertThat(success.header("accept")).isEqualTo("application/vnd.github+json");
        assertThat(success.json().get("context").asText()).isEqualTo("slipway/production");
        assertThat(success.json().get("target_url").asText()).isEqualTo(live.get("url").asText());
        assertThat(success.json().get("description").asText()).isEqualTo("Live in production");
        assertThat(refused.get()).as("the first attempt was answered 503 and made again").isGreaterThanOrEqualTo(2);

        // a preview of a branch: its own context and address
        String feature = server.git().commit(repo.name(), "feature/x", site("statuses feature"), "feature");
        String previewId = deploy("{\"project_id\":\"" + projectId + "\",\"target\":\"preview\",\"branch\":\"feature/x\"}");
        JsonNode preview = Statuses.await(tenant.http(), "deployments", previewId, "live", RUN);
        WebhookReceiver.Received previewed = awaitState(repo.statuses(feature), "success");
        assertThat(previewed.json().get("context").asText()).isEqualTo("slipway/preview");
        assertThat(previewed.json().get("target_url").asText()).isEqualTo(preview.get("preview_url").asText());

        // a build that fails: failure, pointing at the deployment's page
        Map<String, String> noIndex = new HashMap<>();
        noIndex.put("index.html", null);
        noIndex.put("about.html", "<p>no index");
        String broken = server.git().commit(repo.name(), "main", noIndex, "broken");
        String failed = deploy("{\"project_id\":\"" + projectId + "\"}");
        Statuses.await(tenant.http(), "deployments", failed, "failed", RUN);
        WebhookReceiver.Received failure = awaitState(repo.statuses(broken), "failure");
        assertThat(failure.json().get("target_url").asText()).endsWith("/dashboard/deployments/" + failed);
        String logs = tenant.http().get("/v1/deployments/" + failed + "/logs").body();
        assertThat(logs).doesNotContain(repo.token());
        for (WebhookReceiver.Received r : github.received()) {
            if (r.header("x-receiver-path").startsWith("/gh/repos/" + repo.name() + "/")) {
                assertThat(r.header("authorization")).isEqualTo("token " + repo.token());
            }
        }
    }

    @Test
    void aTokenWithoutTheScopeIsLoggedOnceAndCommitStatusesFalseSendsNothing() {
        Repo repo = privateRepo("scope");
        String v1 = server.git().commit(repo.name(), "main", site("scope v1"), "v1");
        github.answer(r -> r.header("x-receiver-path").startsWith("/gh/repos/" + repo.name() + "/") ? 403 : 201);
        String projectId = migrate(repo);
        String first = tenant.http().get("/v1/projects/" + projectId).json().at("/data/production_deployment_id").asText();
        Await.until(RUN, "the refusal in the deployment's log", () -> tenant.http().get("/v1/deployments/" + first + "/logs").body()
                .contains("was not reported to github"));
        String logs = tenant.http().get("/v1/deployments/" + first + "/logs").body();
        assertThat(logs).contains("answered HTTP 403").contains("scope to set commit statuses").doesNotContain(repo.token());
        assertThat(github.received(repo.statuses(v1))).isNotEmpty();

        var off = tenant.http().send("PATCH", "/v1/projects/" + projectId, "application/json",
                "{\"commit_statuses\":false}".getBytes(StandardCharsets.UTF_8));
        assertThat(off.status()).as(off.body()).isEqualTo(200);
        assertThat(off.json().at("/data/commit_statuses").asBoolean(true)).isFalse();
        String v2 = server.git().commit(repo.name(), "main", site("scope v2"), "v2");
        Statuses.await(tenant.http(), "deployments", deploy("{\"project_id\":\"" + projectId + "\"}"), "live", RUN);
        var bad = tenant.http().send("PATCH", "/v1/projects/" + projectId, "application/json",
                "{\"commit_statuses\":\"yes\"}".getBytes(StandardCharsets.UTF_8));
        assertThat(bad.status()).as(bad.body()).isEqualTo(400);
        assertThat(bad.json().at("/error/details/commit_statuses").asText()).isEqualTo("must be true or false");
        // statuses are queued in the transaction of the deployment's change: none was, so none can be sent later
        int queued = server.slipway().database().jdbi().withHandle(h -> h.createQuery(
                "SELECT COUNT(*) FROM commit_statuses WHERE commit_sha = :sha").bind("sha", v2).mapTo(Integer.class).one());
        assertThat(queued).as("statuses queued for the commit deployed with commit_statuses false").isZero();
        assertThat(github.received(repo.statuses(v2))).isEmpty();
    }
}
