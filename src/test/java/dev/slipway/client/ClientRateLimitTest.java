package dev.slipway.client;

import dev.slipway.accounts.Tier;
import dev.slipway.projects.NewProject;
import dev.slipway.store.Dialect;
import dev.slipway.store.PageRequest;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.GitServer;
import dev.slipway.testing.OffsetClock;
import dev.slipway.testing.TestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The client's side of a 429: it waits for Retry-After and sends the request once more. The server's clock is
 * moved on to the last quarter of the quota's minute, so the wait is seconds; the server's own 429 and Retry-After are held
 * on both stores by RateLimitTest, so this runs once, on the embedded store.
 */
@EndToEnd
class ClientRateLimitTest {
    private static final Pattern DEPLOYMENT_ID = Pattern.compile("dep_[0-9a-z]{26}");
    private static final OffsetClock clock = new OffsetClock();
    private static GitServer git;
    private static TestServer server;

    @BeforeAll
    static void start() {
        git = GitServer.start();
        server = TestServer.start(Dialect.H2, c -> c.gitHosts(git.hosts()), clock);
    }

    @AfterAll
    static void stop() {
        if (server != null) server.close();
        if (git != null) git.close();
    }

    @Test
    void aRateLimitedDeployWaitsForRetryAfterAndDeploysOnce() {
        var limited = server.tenant(Tier.FREE, 10);
        git.createRepo("acme/limited");
        git.commit("acme/limited", "main", ClientApps.version("limited"), "limited");
        String projectId = server.slipway().projects().create(new NewProject(limited.account().id(), "limited", "github",
                "acme/limited", "main", "node-express", "us-east-1", null, Map.of())).id();
        for (int i = 0; i < 10; i++) assertThat(limited.http().get("/v1/projects").status()).isEqualTo(200);
        assertThat(limited.http().get("/v1/projects").status()).isEqualTo(429);
        // a quarter of the minute left: room for the client's own start on a loaded machine, and a wait of seconds
        clock.advance(Duration.ofSeconds(45));

        Cli.Result r = Cli.run(Map.of("SLIPWAY_API_URL", server.baseUrl(), "SLIPWAY_API_KEY", limited.key()),
                "deploy", "--project", projectId, "--wait", "--timeout", "3m");
        assertThat(r.exit()).as(r.toString()).isEqualTo(0);
        Matcher retry = Pattern.compile("POST /deployments: rate limited; retrying in (\\d+)(\\.\\d)? s \\(Retry-After\\)").matcher(r.err());
        assertThat(retry.find()).as(r.err()).isTrue();
        assertThat(Integer.parseInt(retry.group(1))).as("the wait the server's clock leaves").isLessThanOrEqualTo(15);
        // the store, not the API: the test's own reads must not depend on the quota it used up
        var all = server.slipway().stores().deployments().page(limited.account().id(), projectId, null,
                new PageRequest(100, null)).data();
        assertThat(all).hasSize(1);
        Matcher id = DEPLOYMENT_ID.matcher(r.out());
        assertThat(id.find()).as("a deployment id in: " + r.out()).isTrue();
        assertThat(all.get(0).id()).isEqualTo(id.group());
        assertThat(all.get(0).status().label()).isEqualTo("live");
    }
}
