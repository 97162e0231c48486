package dev.slipway.client;

import dev.slipway.accounts.Tier;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Apps;
import dev.slipway.testing.Await;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.GitServer;
import dev.slipway.testing.TestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code slipway logs PROJECT --follow}: a project's production log, followed across a deploy and a warm rollback,
 * with the app's output of each request in it, and {@code slipway rollback PROJECT}: never an id copied by hand. H2 only.
 */
@EndToEnd
class ProductionLogsTest {
    private static final Duration RUN = Duration.ofMinutes(2);
    static GitServer git;
    static TestServer server;
    static TestServer.Tenant tenant;
    static Map<String, String> env;

    @BeforeAll
    static void start() {
        git = GitServer.start();
        server = TestServer.start(Dialect.H2, c -> c.gitHosts(git.hosts()));
        tenant = server.tenant(Tier.TEAM);
        env = Map.of("SLIPWAY_API_URL", server.baseUrl(), "SLIPWAY_API_KEY", tenant.key());
    }

    @AfterAll
    static void stop() {
        if (server != null) server.close();
        if (git != null) git.close();
    }

    /** An app that writes a line for each request it serves. */
    private static Map<String, String> chatty(String version) {
        Map<String, String> files = new LinkedHashMap<>(ClientApps.version(version));
        files.put("server.js", """
                const http = require("http");
                const version = require("fs").readFileSync(__dirname + "/VERSION", "utf8").trim();
                http.createServer((req, res) => {
                  console.log(version + " served " + req.url);
                  res.end("app:" + version);
                }).listen(Number(process.env.PORT), "127.0.0.1");
                """);
        return files;
    }

    @Test
    void aProjectsFollowMovesWithProductionAcrossADeployAndAWarmRollback() throws Exception {
        String repo = "acme/follow";
        git.createRepo(repo);
        git.commit(repo, "main", chatty("v1"), "v1");
        var created = tenant.http().post("/v1/projects", "{\"source\":\"github\",\"repo\":\"" + repo + "\",\"name\":\"follow-me\","
                + "\"framework\":\"node-express\"}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        String url = created.json().at("/data/url").asText();
        Cli.Result deployed = Cli.run(env, "deploy", "follow-me", "--wait", "--output", "json");
        assertThat(deployed.exit()).as(deployed.toString()).isZero();
        String first = deployed.json().get("id").asText();

        Cli.Running follow = Cli.start(env, "logs", "follow-me", "--follow");
        Await.until(RUN, "the follow to start on " + first, () -> follow.errSoFar().contains("following production: " + first));
        assertThat(Apps.get(url + "/one").body()).isEqualTo("app:v1");
        Await.until(RUN, "the app's line for /one", () -> follow.outSoFar().contains("v1 served /one"));

        git.commit(repo, "main", chatty("v2"), "v2");
        Cli.Result next = Cli.run(env, "deploy", "follow-me", "--wait", "--output", "json");
        assertThat(next.exit()).as(next.toString()).isZero();
        String second = next.json().get("id").asText();
        Await.until(RUN, "the follow to move to " + second, () -> follow.errSoFar().contains("production is now " + second));
        assertThat(Apps.get(url + "/two").body()).isEqualTo("app:v2");
        Await.until(RUN, "the app's line for /two", () -> follow.outSoFar().contains("v2 served /two"));

        // by the project's name: back to the deployment that served production before the current one
        Cli.Result back = Cli.run(env, "rollback", "follow-me", "--wait", "--output", "json");
        assertThat(back.exit()).as(back.toString()).isZero();
        assertThat(back.json().get("rollback_of").asText()).isEqualTo(first);
        String third = back.json().get("id").asText();
        Await.until(RUN, "the follow to move to the rollback " + third, () -> follow.errSoFar().contains("production is now " + third));
        assertThat(Apps.get(url + "/three").body()).isEqualTo("app:v1");
        Await.until(RUN, "the warm app's line for /three", () -> follow.outSoFar().contains("v1 served /three"));
        assertThat(follow.exit()).as("a project's follow goes on").isNotDone();

        // the app the rollback switched to writes to the rollback's log from then on, where production's reader looks
        assertThat(Cli.run(env, "logs", third).out()).contains("v1 served /three")
                .contains("writes its output to this deployment's log from now on");
        assertThat(Cli.run(env, "logs", first).out()).contains("v1 served /one").doesNotContain("/three");
        assertThat(Cli.run(env, "logs", "follow-me").out()).as("a project's log is its production's").contains("v1 served /three");
        follow.stop(); // as Ctrl-C ends it

        Cli.Result undo = Cli.run(env, "rollback", "follow-me", "--wait", "--output", "json");
        assertThat(undo.exit()).as(undo.toString()).isZero();
        assertThat(undo.json().get("rollback_of").asText()).as("a second rollback undoes the first").isEqualTo(second);
        assertThat(Apps.get(url).body()).isEqualTo("app:v2");
    }
}
