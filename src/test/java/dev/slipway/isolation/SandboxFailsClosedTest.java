package dev.slipway.isolation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.dashboard.WebClient;
import dev.slipway.pipeline.NodeApp;
import dev.slipway.projects.NewProject;
import dev.slipway.projects.Project;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Apps;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.JavaProcess;
import dev.slipway.testing.Statuses;
import dev.slipway.testing.TestServer;
import dev.slipway.testing.TestStore;
import dev.slipway.testing.Zips;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A fresh machine without bubblewrap, passt and nftables (the server looks for its tools in an empty directory,
 * {@code SLIPWAY_SANDBOX_TOOLS}): the server starts and serves its first account, NOT isolated and saying so; every
 * other account, and a key or dashboard user for one, is refused with the install command, by the API, the dashboard
 * and the operator commands, and its code never runs. With {@code --isolation=none}, the operator's choice, every
 * account is served and {@code /healthz} says that apps are not isolated.
 */
@EndToEnd
class SandboxFailsClosedTest {
    static final String PASSWORD = "correct horse battery";
    static Path noTools;
    static TestServer bare;
    /** The operator's own: the store's first account. */
    static TestServer.Tenant first;
    /** An account made before the sandbox stopped working (in the store: the operator commands now refuse it). */
    static TestServer.Tenant other;

    @BeforeAll
    static void start() throws IOException {
        noTools = Files.createTempDirectory("slipway-no-tools-");
        bare = TestServer.start(Dialect.H2, c -> c.environment(environment(noTools)));
        first = bare.tenant(Tier.TEAM);
        other = bare.tenant(Tier.FREE);
    }

    @AfterAll
    static void stop() throws IOException {
        bare.close();
        Files.deleteIfExists(noTools);
    }

    /** The process's environment (the build's settings for test servers) with the sandbox's tools looked for in {@code tools}. */
    static Map<String, String> environment(Path tools) {
        Map<String, String> env = new HashMap<>(System.getenv());
        env.put("SLIPWAY_SANDBOX_TOOLS", tools.toString());
        return env;
    }

    @Test
    void theFirstAccountIsServedNotIsolatedAndEveryAnswerSaysSo() {
        JsonNode health = bare.anonymous().get("/healthz").json();
        assertThat(health.get("status").asText()).isEqualTo("ok");
        assertThat(health.get("isolation").asText()).isEqualTo("none");
        assertThat(health.get("accounts").asText()).isEqualTo("first_only");
        assertThat(health.get("warning").asText()).startsWith("WARNING: apps are not isolated on this server")
                .contains("missing bwrap", SandboxTools.INSTALL, "--isolation=none");
        assertThat(bare.anonymous().get("/readyz").json().get("accounts").asText()).isEqualTo("first_only");

        Http http = first.http();
        assertThat(http.get("/v1/projects").status()).isEqualTo(200);
        var upload = http.send("POST", "/v1/uploads", "application/zip", Zips.of(NodeApp.version("first")));
        assertThat(upload.status()).as(upload.body()).isEqualTo(201);
        var migration = http.post("/v1/migrations", "{\"source\":\"zip\",\"framework\":\"node-express\",\"upload_id\":\""
                + upload.json().at("/data/id").asText() + "\"}");
        assertThat(migration.status()).as(migration.body()).isEqualTo(201);
        JsonNode done = Statuses.await(http, "migrations", migration.json().at("/data/id").asText(), "complete", Duration.ofMinutes(3));
        assertThat(Apps.get(done.get("url").asText()).body()).startsWith("app:first");
        JsonNode log = http.get("/v1/deployments/" + done.get("deployment_id").asText() + "/logs").json().at("/data/logs/0");
        assertThat(log.get("message").asText()).startsWith("WARNING: apps are not isolated on this server");
    }

    @Test
    void anotherAccountIsRefusedWithTheInstallCommandAndItsCodeNeverRuns() throws Exception {
        for (Http.Response r : List.of(other.http().get("/v1/projects"),
                other.http().post("/v1/projects", "{\"source\":\"github\",\"repo\":\"acme/web\"}"))) {
            assertThat(r.status()).as(r.body()).isEqualTo(403);
            assertThat(r.json().at("/error/code").asText()).isEqualTo("sandbox_unavailable");
            assertThat(r.json().at("/error/message").asText()).contains("only its first account", SandboxTools.INSTALL,
                    "--isolation=none");
            assertThat(r.json().at("/error/request_id").asText()).isNotBlank();
        }
        // a build or app of that account that reaches the runtime anyway (queued before, restarted after a restart)
        String name = "p-" + UUID.randomUUID().toString().substring(0, 8);
        Project project = bare.slipway().projects().create(new NewProject(other.account().id(), name, "github", "acme/" + name,
                "main", null, "us-east-1", null, Map.of()));
        Path marker = Files.createTempFile("slipway-ran-", "");
        Files.delete(marker);
        Cell cell = new Cell("b-refused-1", project.id(), List.of("/usr/bin/touch", marker.toString()), Path.of("/tmp"), Map.of(),
                List.of(), List.of(), List.of(), new Limits(64 * Limits.MB, 250, 16, Limits.MB), 0, false);
        assertThatThrownBy(() -> bare.slipway().engine().confinement().start(cell)).isInstanceOf(IOException.class)
                .hasMessageContaining(SandboxTools.INSTALL);
        assertThat(marker).doesNotExist();
    }

    @Test
    void theOperatorCommandsRefuseNewAccountsAndKeysOrUsersForOthers() {
        JavaProcess.Result account = slipway("accounts", "create", "--name", "acme-" + System.nanoTime());
        assertThat(account.exitCode()).as(account.stdout()).isEqualTo(2);
        assertThat(account.stderr()).contains("only its first account", SandboxTools.INSTALL, "--isolation=none");

        JavaProcess.Result key = slipway("keys", "create", "--account", other.account().id());
        assertThat(key.exitCode()).as(key.stdout()).isEqualTo(2);
        assertThat(key.stderr()).contains(SandboxTools.INSTALL).doesNotContain("sk_");
        JavaProcess.Result user = slipway("users", "create", "--account", other.account().id(), "--email", "x@example.com");
        assertThat(user.exitCode()).as(user.stdout()).isEqualTo(2);
        assertThat(user.stderr()).contains(SandboxTools.INSTALL);

        JavaProcess.Result own = slipway("keys", "create", "--account", first.account().id(), "--json");
        assertThat(own.exitCode()).as(own.stderr()).isZero();
        assertThat(own.stdout()).contains("sk_");
    }

    @Test
    void theDashboardServesTheFirstAccountWithTheWarningAndRefusesTheOthers() {
        WebClient own = new WebClient(bare.baseUrl());
        HttpResponse<String> in = own.signIn(user(first), PASSWORD);
        assertThat(in.statusCode()).as(in.body()).isEqualTo(303);
        HttpResponse<String> keys = own.get("/dashboard/settings/api-keys");
        assertThat(keys.statusCode()).isEqualTo(200);
        assertThat(keys.body()).contains("apps are not isolated on this server", "only its first account", SandboxTools.INSTALL);

        WebClient theirs = new WebClient(bare.baseUrl());
        HttpResponse<String> refused = theirs.signIn(user(other), PASSWORD);
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(403);
        assertThat(refused.body()).startsWith("<!doctype html>").contains("only its first account", SandboxTools.INSTALL);
        assertThat(refused.headers().allValues("Set-Cookie")).noneMatch(c -> c.startsWith("slipway_session=") && !c.contains("Max-Age=0"));
    }

    @Test
    void withIsolationNoneChosenEveryAccountIsServedAndHealthzSaysNotIsolated() throws IOException {
        Path tools = Files.createTempDirectory("slipway-no-tools-");
        try (TestServer chosen = TestServer.start(Dialect.H2, c -> c.environment(environment(tools)).isolation(IsolationMode.NONE))) {
            JsonNode health = chosen.anonymous().get("/healthz").json();
            assertThat(health.get("isolation").asText()).isEqualTo("none");
            assertThat(health.get("accounts").asText()).isEqualTo("all");
            assertThat(health.get("warning").asText()).isEqualTo(Confinement.NOT_ISOLATED);
            TestServer.Tenant one = chosen.tenant(Tier.TEAM);
            TestServer.Tenant two = chosen.tenant(Tier.FREE);
            assertThat(one.http().get("/v1/projects").status()).isEqualTo(200);
            assertThat(two.http().get("/v1/projects").status()).isEqualTo(200);
            JavaProcess.Result account = JavaProcess.run(Map.of("SLIPWAY_DATA_DIR", chosen.store().dataDir().toString()),
                    chosen.store().dataDir(), "accounts", "create", "--name", "third-" + System.nanoTime(), "--json");
            assertThat(account.exitCode()).as(account.stderr()).isZero();
            JavaProcess.Result key = JavaProcess.run(Map.of("SLIPWAY_DATA_DIR", chosen.store().dataDir().toString()),
                    chosen.store().dataDir(), "keys", "create", "--account", two.account().id(), "--json");
            assertThat(key.exitCode()).as(key.stderr()).isZero();
        } finally {
            TestStore.deleteTree(tools);
        }
    }

    private static JavaProcess.Result slipway(String... args) {
        return JavaProcess.run(Map.of("SLIPWAY_DATA_DIR", bare.store().dataDir().toString()), bare.store().dataDir(), args);
    }

    private static String user(TestServer.Tenant tenant) {
        String email = "u-" + UUID.randomUUID().toString().substring(0, 8) + "@example.com";
        bare.slipway().users().create(tenant.account().id(), email, PASSWORD);
        return email;
    }
}
