package dev.slipway.client;

import dev.slipway.accounts.Tier;
import dev.slipway.projects.NewProject;
import dev.slipway.store.Dialect;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.TestServer;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Usage errors (exit 2, nothing sent), API errors (exit 4 with the API's code and message) and an API
 * that cannot be reached. The store kind does not matter here: H2 only.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
@EndToEnd
class ClientErrorsTest {
    static TestServer server;
    static TestServer.Tenant tenant;
    static Map<String, String> env;
    static String projectId;

    @BeforeAll
    static void start() {
        server = TestServer.start(Dialect.H2);
        tenant = server.tenant(Tier.TEAM);
        env = Map.of("SLIPWAY_API_URL", server.baseUrl(), "SLIPWAY_API_KEY", tenant.key());
        projectId = server.slipway().projects().create(new NewProject(tenant.account().id(),
                "web-" + UUID.randomUUID().toString().substring(0, 8), "github", "acme/web", "main", null, "us-east-1",
                null, Map.of())).id();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static Map<String, String> with(String name, String value) {
        Map<String, String> m = new HashMap<>(env);
        if (value == null) m.remove(name); else m.put(name, value);
        return m;
    }

    /** Exit 2 with the message on stderr, nothing on stdout, and no deployment created. */
    static Cli.Result usage(Map<String, String> environment, String expected, String... args) {
        Cli.Result r = Cli.run(environment, args);
        assertThat(r.exit()).as(r.toString()).isEqualTo(2);
        assertThat(r.err()).contains(expected);
        assertThat(r.out()).isEmpty();
        assertThat(tenant.http().get("/v1/deployments?project_id=" + projectId).json().get("data").size()).isZero();
        return r;
    }

    @Test
    void aMissingKeyIsAUsageError() {
        usage(with("SLIPWAY_API_KEY", null), "SLIPWAY_API_KEY is not set", "deploy", "--project", projectId, "--wait");
        usage(with("SLIPWAY_API_KEY", "  "), "SLIPWAY_API_KEY is not set", "projects", "list");
        // and there is no way to pass one on the command line
        Cli.Result r = usage(env, "Unknown option: '--api-key'", "deploy", "--project", projectId, "--api-key", tenant.key());
        assertThat(r.err()).doesNotContain(tenant.key());
    }

    @Test
    void badOptionsAreUsageErrors() {
        usage(env, "--env takes KEY=VALUE, not 'NOEQUALS'", "deploy", "--project", projectId, "--env", "NOEQUALS");
        usage(env, "--env needs a name before '='", "deploy", "--project", projectId, "--env", "=value");
        usage(env, "name '1X' is not a variable name", "deploy", "--project", projectId, "--env", "1X=y");
        usage(env, "--env A is given twice", "deploy", "--project", projectId, "--env", "A=1", "--env", "A=2");
        usage(env, "--timeout must be a positive duration", "deploy", "--project", projectId, "--wait", "--timeout", "soon");
        usage(env, "--output", "projects", "list", "--output", "yaml");
        usage(env, "name the project to deploy: slipway deploy PROJECT, by its name or its id (prj_…)", "deploy");
        usage(env, "name the project once", "deploy", "web", "--project", projectId);
        usage(env, "no project of yours is named 'no-such-app'", "deploy", "no-such-app");
        Cli.Result typo = usage(env, "Unknown option: '--projct'", "deploy", "--projct", projectId);
        assertThat(typo.err()).contains("Possible solutions: --project");
        usage(env, "--limit must be from 1 to 100", "projects", "list", "--limit", "101");
        usage(env, "--status must be one of", "deployments", "list", "--status", "done");
        usage(env, "the project has no production deployment yet", "logs", projectId);
        usage(env, "no project of yours is named 'no-such-app'", "logs", "no-such-app", "--follow");
        usage(env, "--zip /no/such.zip is not a readable file", "migrate", "--zip", "/no/such.zip");
        usage(env, "--source github|gitlab|bitbucket (with --repo), --zip PATH or --image REF is required", "migrate", "--repo", "a/b");
        usage(env, "needs the service key in SLIPWAY_DATABASE_SERVICE_KEY", "migrate", "--source", "github", "--repo", "a/b",
                "--database", "type=postgres,action=connect,url=postgres://db.internal:5432/app");
        usage(env, "--database takes no service_key", "migrate", "--source", "github", "--repo", "a/b",
                "--database", "type=postgres,action=connect,url=postgres://db/app,service_key=secret");
        usage(with("SLIPWAY_API_URL", "ftp://example.com"), "SLIPWAY_API_URL must be an http(s) address", "projects", "list");
    }

    @Test
    void anUnknownCommandIsAUsageError() {
        Cli.Result r = usage(env, "Unmatched arguments from index 0: 'deploi'", "deploi", "--project", projectId);
        assertThat(r.err()).contains("Did you mean: slipway deploy");
        usage(env, "Unmatched argument", "deployments", "remove", "dep_x");
    }

    @Test
    void aProjectIsNamedByItsNameAsWellAsItsId() {
        String name = "named-" + UUID.randomUUID().toString().substring(0, 8);
        String id = server.slipway().projects().create(new NewProject(tenant.account().id(), name, "github", "acme/named",
                "main", null, "us-east-1", null, Map.of())).id();
        Cli.Result deployed = Cli.run(env, "deploy", name, "--output", "json");
        assertThat(deployed.exit()).as(deployed.toString()).isZero();
        assertThat(deployed.json().get("project_id").asText()).isEqualTo(id);
        Cli.Result listed = Cli.run(env, "deployments", "list", "--project", name, "--output", "json");
        assertThat(listed.exit()).as(listed.toString()).isZero();
        assertThat(listed.json().get(0).get("id").asText()).isEqualTo(deployed.json().get("id").asText());
    }

    @Test
    void aBadKeyIsAnApiErrorWithTheApisCodeAndMessage() {
        Cli.Result r = Cli.run(with("SLIPWAY_API_KEY", "sk_not_a_real_key"), "deploy", "--project", projectId, "--wait");
        assertThat(r.exit()).as(r.toString()).isEqualTo(4);
        assertThat(r.err()).contains("API error unauthorized (HTTP 401): Invalid or revoked API key [request req_");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void refusedRequestsAreApiErrorsWithTheirDetails() {
        Cli.Result missing = Cli.run(env, "deploy", "--project", "prj_00000000000000000000000000");
        assertThat(missing.exit()).as(missing.toString()).isEqualTo(4);
        assertThat(missing.err()).contains("API error not_found (HTTP 404)");
        Cli.Result invalid = Cli.run(env, "migrate", "--source", "github", "--repo", "not a repo", "--output", "json");
        assertThat(invalid.exit()).as(invalid.toString()).isEqualTo(4);
        assertThat(invalid.err()).contains("API error invalid_request (HTTP 400)").containsPattern("(?m)^  repo: .+");
        assertThat(invalid.out()).isEmpty();
    }

    @Test
    void theApiAddressMayEndInV1AndTheHelpNeedsNoKey() {
        Cli.Result r = Cli.run(with("SLIPWAY_API_URL", server.baseUrl() + "/v1/"), "projects", "show", projectId, "--output", "json");
        assertThat(r.exit()).as(r.toString()).isEqualTo(0);
        assertThat(r.json().get("id").asText()).isEqualTo(projectId);
        Cli.Result help = Cli.run(Map.of(), "deploy", "--help");
        assertThat(help.exit()).isEqualTo(0);
        assertThat(help.out()).contains("--project=PROJECT").contains("--timeout=DURATION").contains("Exit codes:");
    }

    @Test
    void anUnreachableApiIsRetriedFiveTimesThenExitsFour() throws IOException {
        // a port bound but not listening, held for the whole test: connecting is refused, and no other test's
        // server can be given it meanwhile (a port only picked free was, in a fresh-clone run)
        try (Socket held = new Socket()) {
            held.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            int port = held.getLocalPort();
            Cli.Result r = Cli.run(with("SLIPWAY_API_URL", "http://127.0.0.1:" + port), "projects", "list");
            assertThat(r.exit()).as(r.toString()).isEqualTo(4);
            assertThat(r.err()).contains("(try 2/5)").contains("(try 5/5)").contains("gave up after 5 tries");
            // 0.5 + 1 + 2 + 4 s of backoff, each with up to 25 % jitter
            assertThat(r.took()).isBetween(Duration.ofMillis(7_500), Duration.ofSeconds(20));
        }
    }
}
