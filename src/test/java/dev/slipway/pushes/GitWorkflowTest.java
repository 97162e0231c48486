package dev.slipway.pushes;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Apps;
import dev.slipway.testing.Await;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.ServerPerStore;
import dev.slipway.testing.SshGitServer;
import dev.slipway.testing.Statuses;
import dev.slipway.testing.TestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The git workflow end to end, with static sites (no install, no build) so each deployment is quick: a private
 * repository over HTTPS basic auth and over SSH with a deploy key (a real sshd), a project changed with PATCH, and
 * signed push deliveries of GitHub, GitLab and Gitea, played by the test with each host's documented headers and
 * payload.
 */
@EachStore
@EndToEnd
class GitWorkflowTest {
    private static final Duration RUN = Duration.ofSeconds(120);

    /** The same repositories over SSH, for deploy keys; started before the servers that clone from it. */
    static final SshGitServer ssh = SshGitServer.start(() -> GitWorkflowTest.server.git().root());
    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.withGit(c -> c.gitSshHosts("github=" + ssh.base()));
    static TestServer.Tenant tenant;

    @AfterAll
    static void stopSsh() {
        ssh.close();
    }

    final Dialect kind = server.kind();

    @EachStore.Before
    static void start() {
        tenant = server.tenant(Tier.TEAM);
    }

    static Map<String, String> site(String content) {
        return Map.of("index.html", "<!doctype html><title>" + content + "</title><p>" + content + "</p>");
    }

    String repo(String name) {
        String repo = "acme/" + name + "-" + kind.name().toLowerCase() + "-" + UUID.randomUUID().toString().substring(0, 6);
        server.git().createRepo(repo);
        return repo;
    }

    static String migrate(String repo, String more) {
        var r = tenant.http().post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"" + repo
                + "\",\"framework\":\"static\"" + (more == null ? "" : "," + more) + "}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().at("/data/id").asText();
    }

    static JsonNode project(String id) {
        var r = tenant.http().get("/v1/projects/" + id);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.json().get("data");
    }

    static String logs(String kind, String id) {
        return tenant.http().get("/v1/" + kind + "/" + id + "/logs").body();
    }

    static String deploy(String projectId) {
        var r = tenant.http().post("/v1/deployments", "{\"project_id\":\"" + projectId + "\"}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().at("/data/id").asText();
    }

    static JsonNode awaitFailed(String kind, String id) {
        return Await.value(RUN, kind + " " + id + " to fail", () -> {
            JsonNode d = tenant.http().get("/v1/" + kind + "/" + id + "?wait=2").json().get("data");
            String status = d.get("status").asText();
            assertThat(status).as(kind + " " + id + " was to fail").isNotIn("complete", "live");
            return status.equals("failed") ? d : null;
        });
    }

    record Site(String projectId, String repo) {}

    /** A new repository with a site saying {@code content} on main, migrated and live. */
    Site liveSite(String name, String content) {
        String repo = repo(name);
        server.git().commit(repo, "main", site(content), "main");
        String projectId = Statuses.await(tenant.http(), "migrations", migrate(repo, null), "complete", RUN).get("project_id").asText();
        serves(project(projectId), content);
        return new Site(projectId, repo);
    }

    static void serves(JsonNode project, String content) {
        String url = project.get("url").asText();
        Await.until(RUN, url + " to serve " + content, () -> Apps.get(url).body().contains(content));
    }

    @Test
    void aPrivateRepositoryFailsWithoutItsTokenAndDeploysWithItWhichIsNeverShown() {
        String token = "glpat-" + UUID.randomUUID().toString().replace("-", "");
        String repo = repo("private");
        server.git().makePrivate(repo, null, token);
        server.git().commit(repo, "main", site("private v1"), "v1");

        String anonymous = migrate(repo, null);
        awaitFailed("migrations", anonymous);
        assertThat(logs("migrations", anonymous)).contains("it is private: give the project git_credentials");

        String withToken = migrate(repo, "\"git_credentials\":{\"token\":\"" + token + "\"}");
        JsonNode done = Statuses.await(tenant.http(), "migrations", withToken, "complete", RUN);
        String projectId = done.get("project_id").asText();
        JsonNode project = project(projectId);
        serves(project, "private v1");
        assertThat(project.get("git_credentials").get("type").asText()).isEqualTo("token");
        assertThat(project.get("git_credentials").get("username").isNull()).isTrue();
        assertThat(project.toString()).doesNotContain(token);
        assertThat(tenant.http().get("/v1/projects").body()).doesNotContain(token);
        assertThat(logs("migrations", withToken)).doesNotContain(token);
        String sealed = server.slipway().database().jdbi().withHandle(h -> h.createQuery(
                "SELECT secret_enc FROM project_git WHERE project_id = :p").bind("p", projectId).mapTo(String.class).one());
        assertThat(sealed).doesNotContain(token).startsWith("v1:");

        // a revoked token: the next deployment fails with the reason, the one serving stays
        var wrong = tenant.http().send("PATCH", "/v1/projects/" + projectId, "application/json",
                "{\"git_credentials\":{\"token\":\"revoked-token\",\"username\":\"ci-bot\"}}".getBytes(StandardCharsets.UTF_8));
        assertThat(wrong.status()).as(wrong.body()).isEqualTo(200);
        assertThat(wrong.json().at("/data/git_credentials/username").asText()).isEqualTo("ci-bot");
        String refused = deploy(projectId);
        awaitFailed("deployments", refused);
        assertThat(logs("deployments", refused)).contains("refused the project's git_credentials").doesNotContain("revoked-token");
        serves(project, "private v1");

        server.git().commit(repo, "main", site("private v2"), "v2");
        var right = tenant.http().send("PATCH", "/v1/projects/" + projectId, "application/json",
                ("{\"git_credentials\":{\"token\":\"" + token + "\"}}").getBytes(StandardCharsets.UTF_8));
        assertThat(right.status()).as(right.body()).isEqualTo(200);
        Statuses.await(tenant.http(), "deployments", deploy(projectId), "live", RUN);
        serves(project, "private v2");
    }

    @Test
    void aDeployKeyMadeByTheServerClonesOverSshAndAnotherHostKeyIsRefused() {
        String repo = repo("ssh");
        server.git().commit(repo, "main", site("ssh v1"), "v1");
        var created = tenant.http().post("/v1/projects", "{\"source\":\"github\",\"repo\":\"" + repo
                + "\",\"framework\":\"static\",\"git_credentials\":{\"type\":\"ssh\"}}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        JsonNode project = created.json().get("data");
        String projectId = project.get("id").asText();
        String publicKey = project.get("git_ssh_public_key").asText();
        assertThat(publicKey).startsWith("ssh-ed25519 ").endsWith(" slipway-" + projectId);
        assertThat(project.at("/git_credentials/type").asText()).isEqualTo("ssh");
        assertThat(created.body()).doesNotContain("PRIVATE KEY");
        String sealed = server.slipway().database().jdbi().withHandle(h -> h.createQuery(
                "SELECT secret_enc FROM project_git WHERE project_id = :p").bind("p", projectId).mapTo(String.class).one());
        assertThat(sealed).startsWith("v1:").doesNotContain("PRIVATE KEY");

        // the key is not on the repository yet: refused, with the reason
        String refused = deploy(projectId);
        awaitFailed("deployments", refused);
        assertThat(logs("deployments", refused)).contains("over SSH").contains("refused the project's git_credentials");

        ssh.authorize(publicKey);
        Statuses.await(tenant.http(), "deployments", deploy(projectId), "live", RUN);
        serves(project, "ssh v1");
        assertThat(logs("deployments", refused) + tenant.http().get("/v1/projects/" + projectId).body()).doesNotContain("PRIVATE KEY");

        // the host now shows another key than the one recorded on first use: refused, production stays
        ssh.replaceHostKey();
        server.git().commit(repo, "main", site("ssh v2"), "v2");
        String changed = deploy(projectId);
        awaitFailed("deployments", changed);
        assertThat(logs("deployments", changed)).contains("SSH host key of").contains("not the one recorded");
        serves(project, "ssh v1");
    }

    @Test
    void aPreviewOfABranchNeverTouchesProductionAndPromotingItServesItsBuild() {
        Site site = liveSite("preview", "preview main");
        String projectId = site.projectId();
        String repo = site.repo();
        JsonNode project = project(projectId);
        String production = production(projectId);
        String featureSha = server.git().commit(repo, "feature/login", site("preview feature"), "feature");

        var wrong = tenant.http().post("/v1/deployments", "{\"project_id\":\"" + projectId + "\",\"branch\":\"feature/login\"}");
        assertThat(wrong.status()).as("production from another branch: " + wrong.body()).isEqualTo(400);
        var made = tenant.http().post("/v1/deployments", "{\"project_id\":\"" + projectId
                + "\",\"target\":\"preview\",\"branch\":\"feature/login\"}");
        assertThat(made.status()).as(made.body()).isEqualTo(201);
        String previewId = made.json().at("/data/id").asText();
        JsonNode preview = Statuses.await(tenant.http(), "deployments", previewId, "live", RUN);
        assertThat(preview.get("target").asText()).isEqualTo("preview");
        assertThat(preview.get("branch").asText()).isEqualTo("feature/login");
        assertThat(preview.get("commit_sha").asText()).isEqualTo(featureSha);
        assertThat(preview.get("preview_url").asText()).isEqualTo(preview.get("url").asText());
        Await.until(RUN, "the preview at its address", () -> Apps.get(preview.get("preview_url").asText()).body().contains("preview feature"));
        assertThat(production(projectId)).isEqualTo(production);
        serves(project, "preview main");
        assertThat(logs("deployments", previewId)).contains("Preview is live at");
        String branchUrl = preview.get("branch_url").asText();
        assertThat(branchUrl).matches("http://" + project.get("name").asText() + "-git-feature-login-[0-9a-f]{6}\\..*");
        Await.until(RUN, "the branch address", () -> Apps.get(branchUrl).body().contains("preview feature"));
        // a new project may not take a name that reads as a preview address of this one
        String taken = project.get("name").asText() + "-git-x";
        var squatter = server.tenant(Tier.TEAM).http().post("/v1/projects", "{\"source\":\"github\",\"repo\":\"" + repo
                + "\",\"name\":\"" + taken + "\"}");
        assertThat(squatter.status()).as(squatter.body()).isEqualTo(400);
        assertThat(squatter.json().at("/error/details/name").asText()).contains("preview");

        var rollback = tenant.http().send("POST", "/v1/deployments/" + previewId + "/rollback", null, null);
        assertThat(rollback.status()).as("a rollback to a preview: " + rollback.body()).isEqualTo(409);
        var notPreview = tenant.http().send("POST", "/v1/deployments/" + production + "/promote", null, null);
        assertThat(notPreview.status()).as(notPreview.body()).isEqualTo(409);

        var promoted = tenant.http().send("POST", "/v1/deployments/" + previewId + "/promote", null, null);
        assertThat(promoted.status()).as(promoted.body()).isEqualTo(201);
        assertThat(promoted.json().at("/data/rolled_back_to").asText()).isEqualTo(previewId);
        String promotedId = promoted.json().at("/data/id").asText();
        JsonNode live = Statuses.await(tenant.http(), "deployments", promotedId, "live", RUN);
        assertThat(live.get("promoted_from").asText()).isEqualTo(previewId);
        assertThat(live.get("target").asText()).isEqualTo("production");
        assertThat(live.get("commit_sha").asText()).isEqualTo(featureSha);
        assertThat(live.get("preview_url").isNull()).isTrue();
        assertThat(production(projectId)).isEqualTo(promotedId);
        serves(project, "preview feature");
        assertThat(logs("deployments", promotedId)).contains("Reusing the build").doesNotContain("Build started");
    }

    @Test
    void aPatchThatIsRefusedChangesNothing() {
        String repo = repo("patch");
        var created = tenant.http().post("/v1/projects", "{\"source\":\"github\",\"repo\":\"" + repo
                + "\",\"framework\":\"static\",\"watch_paths\":[\"site/**\"]}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        String id = created.json().at("/data/id").asText();
        assertThat(created.json().at("/data/watch_paths").toString()).isEqualTo("[\"site/**\"]");
        String before = project(id).toString();
        for (String body : List.of(
                "{\"branch\":\"../../x\"}",
                "{\"branch\":\"" + "b".repeat(300) + "\"}",
                "{\"branch\":\"main\",\"watch_paths\":[\"../outside\"]}",
                "{\"watch_paths\":\"site\"}",
                "{\"git_credentials\":{\"token\":\"has space\"}}",
                "{\"git_credentials\":{\"token\":\"t\",\"username\":\"a:b\"}}",
                "{\"git_credentials\":{\"password\":\"t\"}}",
                "{\"git_credentials\":{\"type\":\"ssh\",\"token\":\"t\"}}",
                "{\"deploy_on_push\":\"sometimes\"}",
                "{\"framework\":\"static\"}")) {
            var r = tenant.http().send("PATCH", "/v1/projects/" + id, "application/json", body.getBytes(StandardCharsets.UTF_8));
            assertThat(r.status()).as(body + " → " + r.body()).isEqualTo(400);
            assertThat(r.json().at("/error/code").asText()).isEqualTo("invalid_request");
        }
        assertThat(project(id).toString()).isEqualTo(before);

        var other = server.tenant(Tier.TEAM).http();
        var foreign = other.send("PATCH", "/v1/projects/" + id, "application/json", "{\"branch\":\"x\"}".getBytes(StandardCharsets.UTF_8));
        assertThat(foreign.status()).isIn(403, 404);
        assertThat(other.send("POST", "/v1/projects/" + id + "/git-webhook", null, null).status()).isIn(403, 404);

        var changed = tenant.http().send("PATCH", "/v1/projects/" + id, "application/json",
                "{\"branch\":\"$(id)\",\"watch_paths\":null}".getBytes(StandardCharsets.UTF_8));
        assertThat(changed.status()).as(changed.body()).isEqualTo(200);
        assertThat(changed.json().at("/data/branch").asText()).as("a branch name is data, never a command").isEqualTo("$(id)");
        assertThat(changed.json().at("/data/watch_paths").size()).isZero();
        assertThat(changed.json().at("/data/repo").asText()).isEqualTo(repo);
    }

    /** A git host playing its part: the documented headers and a payload of the push, signed with the secret. */
    record Host(String name, String event, String payload, Map<String, String> headers) {}

    static Host github(String secret, String ref, String sha, List<String> changed) {
        String payload = PushEventTest.github(ref, sha, changed);
        return new Host("GitHub", "push", payload, Map.of("X-GitHub-Event", "push",
                "X-GitHub-Delivery", UUID.randomUUID().toString(),
                "X-Hub-Signature-256", "sha256=" + GitHost.hmac(secret, payload.getBytes(StandardCharsets.UTF_8)),
                "User-Agent", "GitHub-Hookshot/044aadd"));
    }

    static Host gitlab(String secret, String ref, String sha, List<String> changed) {
        return new Host("GitLab", "Push Hook", PushEventTest.gitlab(ref, sha, changed, 1), Map.of("X-Gitlab-Event", "Push Hook",
                "X-Gitlab-Event-UUID", UUID.randomUUID().toString(), "X-Gitlab-Token", secret, "User-Agent", "GitLab/17.5.0"));
    }

    static Host gitea(String secret, String ref, String sha, List<String> changed) {
        String payload = PushEventTest.gitea(ref, sha, changed, 1);
        String hmac = GitHost.hmac(secret, payload.getBytes(StandardCharsets.UTF_8));
        // Gitea also sends GitHub's headers, signed the same way
        return new Host("Gitea", "push", payload, Map.of("X-Gitea-Event", "push", "X-Gitea-Delivery", UUID.randomUUID().toString(),
                "X-Gitea-Signature", hmac, "X-GitHub-Event", "push", "X-Hub-Signature-256", "sha256=" + hmac));
    }

    static Http.Response deliver(String url, Host host) {
        return deliver(url, host.headers(), "application/json", host.payload().getBytes(StandardCharsets.UTF_8));
    }

    static Http.Response deliver(String url, Map<String, String> headers, String type, byte[] body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .header("Content-Type", type);
        headers.forEach(b::header);
        return server.anonymous().send(b);
    }

    static String production(String projectId) {
        return project(projectId).get("production_deployment_id").asText();
    }

    @Test
    void signedPushesOfEachHostDeployAndNothingElseMovesProduction() {
        Site site = liveSite("push", "push v0");
        String projectId = site.projectId();
        String repo = site.repo();
        JsonNode project = project(projectId);

        var made = tenant.http().send("POST", "/v1/projects/" + projectId + "/git-webhook", null, null);
        assertThat(made.status()).as(made.body()).isEqualTo(200);
        String url = made.json().at("/data/url").asText();
        String secret = made.json().at("/data/secret").asText();
        assertThat(url).startsWith(server.baseUrl() + "/v1/git-webhooks/");
        assertThat(project(projectId).at("/git_webhook/url").asText()).isEqualTo(url);
        assertThat(project(projectId).toString()).doesNotContain(secret);

        int version = 0;
        for (var signer : List.<HostMaker>of(GitWorkflowTest::github, GitWorkflowTest::gitlab, GitWorkflowTest::gitea)) {
            version++;
            String sha = server.git().commit(repo, "main", site("push v" + version), "v" + version);
            Host host = signer.make(secret, "refs/heads/main", sha, List.of("index.html"));
            var r = deliver(url, host);
            assertThat(r.status()).as(host.name() + ": " + r.body()).isEqualTo(202);
            String deployment = r.json().at("/data/deployment_id").asText();
            JsonNode live = Statuses.await(tenant.http(), "deployments", deployment, "live", RUN);
            assertThat(live.get("commit_sha").asText()).isEqualTo(sha);
            serves(project, "push v" + version);

            var replay = deliver(url, host);
            assertThat(replay.status()).as(host.name() + " replay: " + replay.body()).isEqualTo(401);
            assertThat(replay.json().at("/error/message").asText()).contains("received before");
        }
        String live = production(projectId);
        String next = server.git().commit(repo, "main", site("push never"), "never served");

        // a bad signature of each host, a payload changed after signing, no signature at all
        for (Host forged : List.of(github("not-the-secret", "refs/heads/main", next, List.of("index.html")),
                gitlab("not-the-secret", "refs/heads/main", next, List.of("index.html")),
                gitea(secret.substring(1), "refs/heads/main", next, List.of("index.html")))) {
            var r = deliver(url, forged);
            assertThat(r.status()).as(forged.name() + ": " + r.body()).isEqualTo(401);
        }
        Host signed = github(secret, "refs/heads/main", next, List.of("index.html"));
        var tampered = deliver(url, signed.headers(), "application/json",
                signed.payload().replace("refs/heads/main", "refs/heads/main ").getBytes(StandardCharsets.UTF_8));
        assertThat(tampered.status()).isEqualTo(401);
        var unsigned = deliver(url, Map.of("X-GitHub-Event", "push", "X-GitHub-Delivery", "d-1"), "application/json",
                signed.payload().getBytes(StandardCharsets.UTF_8));
        assertThat(unsigned.status()).isEqualTo(401);
        assertThat(unsigned.json().at("/error/message").asText()).contains("X-Hub-Signature-256");

        // signed, but nothing to deploy: another branch, a tag, a ping, outside the watch paths
        assertThat(skipped(url, github(secret, "refs/heads/feature", next, List.of("index.html")))).contains("branch feature");
        assertThat(skipped(url, gitlab(secret, "refs/tags/v1.0", next, List.of()))).contains("refs/tags/v1.0");
        Map<String, String> ping = Map.of("X-GitHub-Event", "ping", "X-GitHub-Delivery", UUID.randomUUID().toString(),
                "X-Hub-Signature-256", "sha256=" + GitHost.hmac(secret, "{\"zen\":\"Design for failure.\"}".getBytes(StandardCharsets.UTF_8)));
        var pinged = deliver(url, ping, "application/json", "{\"zen\":\"Design for failure.\"}".getBytes(StandardCharsets.UTF_8));
        assertThat(pinged.status()).as(pinged.body()).isEqualTo(200);
        var watching = tenant.http().send("PATCH", "/v1/projects/" + projectId, "application/json",
                "{\"watch_paths\":[\"site/**\"]}".getBytes(StandardCharsets.UTF_8));
        assertThat(watching.status()).as(watching.body()).isEqualTo(200);
        assertThat(skipped(url, gitea(secret, "refs/heads/main", next, List.of("docs/readme.md")))).contains("watch paths site/**");
        assertThat(production(projectId)).isEqualTo(live);
        serves(project, "push v3");

        // GitHub's form content type, a change under the watch paths: it deploys
        Host form = github(secret, "refs/heads/main", next, List.of("site/x.css"));
        byte[] body = ("payload=" + URLEncoder.encode(form.payload(), StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8);
        Map<String, String> headers = new java.util.HashMap<>(form.headers());
        headers.put("X-Hub-Signature-256", "sha256=" + GitHost.hmac(secret, body));
        var r = deliver(url, headers, "application/x-www-form-urlencoded", body);
        assertThat(r.status()).as(r.body()).isEqualTo(202);
        Statuses.await(tenant.http(), "deployments", r.json().at("/data/deployment_id").asText(), "live", RUN);
        serves(project, "push never");

        // rotating: the old address stops working at once
        var rotated = tenant.http().send("POST", "/v1/projects/" + projectId + "/git-webhook", null, null);
        String rotatedUrl = rotated.json().at("/data/url").asText();
        String rotatedSecret = rotated.json().at("/data/secret").asText();
        assertThat(rotated.json().at("/data/url").asText()).isNotEqualTo(url);
        var old = deliver(url, github(secret, "refs/heads/main", next, List.of("site/x.css")));
        assertThat(old.status()).isEqualTo(404);

        // releases from tags: a pushed (annotated) tag deploys the commit it names; a branch push then deploys nothing
        var tags = tenant.http().send("PATCH", "/v1/projects/" + projectId, "application/json",
                "{\"deploy_on_push\":\"tags\"}".getBytes(StandardCharsets.UTF_8));
        assertThat(tags.json().at("/data/deploy_on_push").asText()).isEqualTo("tags");
        assertThat(skipped(rotatedUrl, github(rotatedSecret, "refs/heads/main", next, List.of("site/x.css")))).contains("deploys pushed tags");
        String release = server.git().commit(repo, "main", site("push release"), "release 1.0");
        String tagObject = "7".repeat(40);
        Host tagged = github(rotatedSecret, "refs/tags/v1.0", tagObject, List.of());
        String payload = tagged.payload().replaceFirst("\\{\"ref\"", "{\"head_commit\":{\"id\":\"" + release + "\"},\"ref\"");
        Map<String, String> tagHeaders = new java.util.HashMap<>(tagged.headers());
        tagHeaders.put("X-Hub-Signature-256", "sha256=" + GitHost.hmac(rotatedSecret, payload.getBytes(StandardCharsets.UTF_8)));
        var byTag = deliver(rotatedUrl, tagHeaders, "application/json", payload.getBytes(StandardCharsets.UTF_8));
        assertThat(byTag.status()).as(byTag.body()).isEqualTo(202);
        JsonNode fromTag = Statuses.await(tenant.http(), "deployments", byTag.json().at("/data/deployment_id").asText(), "live", RUN);
        assertThat(fromTag.get("commit_sha").asText()).isEqualTo(release);
        serves(project, "push release");
        tenant.http().send("PATCH", "/v1/projects/" + projectId, "application/json",
                "{\"deploy_on_push\":\"branch\"}".getBytes(StandardCharsets.UTF_8));

        // a deploy hook: its URL is the secret, a POST deploys the branch's head
        var hook = tenant.http().send("POST", "/v1/projects/" + projectId + "/deploy-hook", null, null);
        assertThat(hook.status()).as(hook.body()).isEqualTo(200);
        String hookUrl = hook.json().at("/data/url").asText();
        assertThat(hookUrl).startsWith(server.baseUrl() + "/v1/deploy-hooks/dh_");
        assertThat(project(projectId).toString()).doesNotContain(hookUrl.substring(hookUrl.lastIndexOf('/') + 1));
        String head = server.git().commit(repo, "main", site("push hook"), "by the hook");
        var hooked = deliver(hookUrl, Map.of(), "application/json", "{\"from\":\"a cron job\"}".getBytes(StandardCharsets.UTF_8));
        assertThat(hooked.status()).as(hooked.body()).isEqualTo(202);
        JsonNode byHook = Statuses.await(tenant.http(), "deployments", hooked.json().at("/data/deployment_id").asText(), "live", RUN);
        assertThat(byHook.get("commit_sha").asText()).isEqualTo(head);
        serves(project, "push hook");
        tenant.http().send("POST", "/v1/projects/" + projectId + "/deploy-hook", null, null);
        assertThat(deliver(hookUrl, Map.of(), "application/json", new byte[0]).status()).as("a rotated hook").isEqualTo(404);
        assertThat(deliver(server.baseUrl() + "/v1/deploy-hooks/dh_guess", Map.of(), "application/json", new byte[0]).status()).isEqualTo(404);
    }

    static Http.Response signedGithub(String url, String secret, String event, String payload) {
        return deliver(url, Map.of("X-GitHub-Event", event, "X-GitHub-Delivery", UUID.randomUUID().toString(),
                "X-Hub-Signature-256", "sha256=" + GitHost.hmac(secret, payload.getBytes(StandardCharsets.UTF_8))),
                "application/json", payload.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void pullRequestsArePreviewedAndClosingOneRetiresItsPreviewsWhileProductionStays() {
        Site site = liveSite("pulls", "pulls main");
        String projectId = site.projectId();
        String repo = site.repo();
        JsonNode project = project(projectId);
        String production = production(projectId);
        var made = tenant.http().send("POST", "/v1/projects/" + projectId + "/git-webhook", null, null).json().get("data");
        String url = made.get("url").asText();
        String secret = made.get("secret").asText();

        String first = server.git().commit(repo, "feature/pay", site("pulls pay 1"), "pay 1");
        var opened = signedGithub(url, secret, "pull_request", PushEventTest.githubPullRequest("opened", "feature/pay", first, "acme/web"));
        assertThat(opened.status()).as(opened.body()).isEqualTo(202);
        JsonNode preview = Statuses.await(tenant.http(), "deployments", opened.json().at("/data/deployment_id").asText(), "live", RUN);
        assertThat(preview.get("target").asText()).isEqualTo("preview");
        assertThat(preview.get("commit_sha").asText()).isEqualTo(first);
        Await.until(RUN, "the first preview", () -> Apps.get(preview.get("preview_url").asText()).body().contains("pulls pay 1"));

        String second = server.git().commit(repo, "feature/pay", site("pulls pay 2"), "pay 2");
        String payload = PushEventTest.githubPullRequest("synchronized", "feature/pay", second, "acme/web");
        String hmac = GitHost.hmac(secret, payload.getBytes(StandardCharsets.UTF_8));
        var synced = deliver(url, Map.of("X-Gitea-Event", "pull_request", "X-Gitea-Delivery", UUID.randomUUID().toString(),
                "X-Gitea-Signature", hmac), "application/json", payload.getBytes(StandardCharsets.UTF_8));
        assertThat(synced.status()).as(synced.body()).isEqualTo(202);
        JsonNode next = Statuses.await(tenant.http(), "deployments", synced.json().at("/data/deployment_id").asText(), "live", RUN);
        Await.until(RUN, "the second preview", () -> Apps.get(next.get("preview_url").asText()).body().contains("pulls pay 2"));
        assertThat(next.get("branch_url").asText()).isEqualTo(preview.get("branch_url").asText());
        Await.until(RUN, "the branch address to serve the newest preview",
                () -> Apps.get(next.get("branch_url").asText()).body().contains("pulls pay 2"));
        Await.until(RUN, "the first preview at its own address still", () -> Apps.get(preview.get("preview_url").asText()).body().contains("pulls pay 1"));

        var fork = signedGithub(url, secret, "pull_request", PushEventTest.githubPullRequest("opened", "feature/pay", second, "mallory/web"));
        assertThat(fork.status()).as(fork.body()).isEqualTo(200);
        assertThat(fork.json().at("/data/skipped").asText()).contains("fork");

        var closed = signedGithub(url, secret, "pull_request", PushEventTest.githubPullRequest("closed", "feature/pay", second, "acme/web"));
        assertThat(closed.status()).as(closed.body()).isEqualTo(200);
        assertThat(closed.json().at("/data/skipped").asText()).contains("2 preview(s) retired");
        assertThat(production(projectId)).isEqualTo(production);
        serves(project, "pulls main");
    }

    interface HostMaker {
        Host make(String secret, String ref, String sha, List<String> changed);
    }

    static String skipped(String url, Host host) {
        var r = deliver(url, host);
        assertThat(r.status()).as(host.name() + ": " + r.body()).isEqualTo(200);
        assertThat(r.json().at("/data/deployment_id").isNull()).isTrue();
        return r.json().at("/data/skipped").asText();
    }

    @Test
    void oneAccountsWebhookNeverDeploysAnothersProject() {
        String repoA = repo("owner-a");
        String shaA = server.git().commit(repoA, "main", site("a v1"), "a");
        var a = tenant.http().post("/v1/projects", "{\"source\":\"github\",\"repo\":\"" + repoA + "\",\"framework\":\"static\"}");
        String projectA = a.json().at("/data/id").asText();
        var hookA = tenant.http().send("POST", "/v1/projects/" + projectA + "/git-webhook", null, null).json().get("data");

        TestServer.Tenant intruder = server.tenant(Tier.TEAM);
        String repoB = repo("owner-b");
        server.git().commit(repoB, "main", site("b v1"), "b");
        var b = intruder.http().post("/v1/projects", "{\"source\":\"github\",\"repo\":\"" + repoB + "\",\"framework\":\"static\"}");
        String projectB = b.json().at("/data/id").asText();
        var hookB = intruder.http().send("POST", "/v1/projects/" + projectB + "/git-webhook", null, null).json().get("data");

        // the intruder signs with its own secret and sends to A's address: refused
        var crossed = deliver(hookA.get("url").asText(), github(hookB.get("secret").asText(), "refs/heads/main", shaA, List.of()));
        assertThat(crossed.status()).isEqualTo(401);
        // a made-up address, and a huge body, are refused before anything is read into a deployment
        var unknown = deliver(server.baseUrl() + "/v1/git-webhooks/gwh_nothere", github(hookA.get("secret").asText(),
                "refs/heads/main", shaA, List.of()));
        assertThat(unknown.status()).isEqualTo(404);
        var huge = deliver(hookA.get("url").asText(), Map.of("X-GitHub-Event", "push"), "application/json",
                new byte[PushHandlers.MAX_PAYLOAD + 1]);
        assertThat(huge.status()).isEqualTo(413);
        // signed right, but not JSON
        byte[] garbage = "{\"ref\":".getBytes(StandardCharsets.UTF_8);
        var bad = deliver(hookA.get("url").asText(), Map.of("X-GitHub-Event", "push", "X-GitHub-Delivery", "g-1",
                "X-Hub-Signature-256", "sha256=" + GitHost.hmac(hookA.get("secret").asText(), garbage)), "application/json", garbage);
        assertThat(bad.status()).isEqualTo(400);
        assertThat(project(projectA).get("production_deployment_id").isNull()).isTrue();
        assertThat(intruder.http().get("/v1/projects/" + projectB).json().at("/data/production_deployment_id").isNull()).isTrue();
        assertThat(tenant.http().get("/v1/deployments?project_id=" + projectA).json().get("data").size()).isZero();
    }
}
