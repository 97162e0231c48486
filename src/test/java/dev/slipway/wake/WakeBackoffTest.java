package dev.slipway.wake;

import dev.slipway.accounts.Tier;
import dev.slipway.build.Artifact;
import dev.slipway.deployments.Deployment;
import dev.slipway.deployments.DeploymentStatus;
import dev.slipway.logs.LogEntry;
import dev.slipway.projects.NewProject;
import dev.slipway.projects.Project;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Apps;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.MutableClock;
import dev.slipway.testing.TestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A deployment whose app does not start when woken, against an in-process server on a clock the test
 * moves: after a failed start its requests get the 503 page with Retry-After at once, without a new
 * start, until its backoff (5 s, then 10 s …) has passed; a start that succeeds resets the backoff.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.slipway.testing.TestStore#kinds")
@EndToEnd
class WakeBackoffTest {
    @Parameter
    Dialect kind;

    final MutableClock clock = new MutableClock();
    TestServer server;
    Path build;
    String deploymentId;
    String url;

    /** A live, non-production deployment whose build starts {@code node start.js}: there is none yet. */
    @BeforeEach
    void setUp() throws Exception {
        server = TestServer.start(kind, c -> c, clock);
        var slipway = server.slipway();
        String accountId = server.tenant(Tier.TEAM).account().id();
        String name = "fails-" + UUID.randomUUID().toString().substring(0, 6);
        Project project = slipway.projects().create(new NewProject(accountId, name, "zip", null, null,
                "node-express", "us-east-1", null, Map.of()));
        build = Files.createDirectories(server.store().dataDir().resolve("builds").resolve(name));
        Files.copy(Path.of(getClass().getResource("/apps/node/server.js").toURI()), build.resolve("server.js"));
        Artifact artifact = new Artifact("art_" + UUID.randomUUID().toString().substring(0, 8), project.id(),
                "node-express", "abc123", build, List.of("node", "start.js"), null, clock.instant());
        slipway.stores().artifacts().save(artifact, 1, Duration.ofSeconds(1));
        deploymentId = "dep_" + UUID.randomUUID().toString().replace("-", "").substring(0, 26);
        Deployment d = new Deployment(deploymentId, accountId, project.id(), null, null, null, null,
                DeploymentStatus.LIVE, null, null, artifact.id(), null, "us-east-1", "local", 1,
                clock.instant(), clock.instant(), null, false, null);
        slipway.stores().deployments().jdbi().useHandle(h -> slipway.stores().deployments().insert(h, d));
        url = "http://" + name + "-" + d.shortId() + "." + slipway.config().listeners().appsDomain() + ":" + slipway.appsPort() + "/";
    }

    @AfterEach
    void tearDown() {
        server.close();
    }

    private long starts() {
        return server.slipway().stores().logs().after(deploymentId, 0, 1000).stream()
                .map(LogEntry::message).filter(m -> m.startsWith("Starting ")).count();
    }

    private void assertBackedOff(String retryAfter) throws Exception {
        long before = starts();
        List<Http.Response> answers = new ArrayList<>();
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Http.Response>> futures = new ArrayList<>();
            for (int i = 0; i < 8; i++) futures.add(clients.submit(() -> Apps.get(url)));
            for (Future<Http.Response> f : futures) answers.add(f.get());
        }
        assertThat(answers).allSatisfy(r -> {
            assertThat(r.status()).as(r.body()).isEqualTo(503);
            assertThat(r.header("Retry-After")).isEqualTo(retryAfter);
            assertThat(r.body()).contains("did not start");
        });
        assertThat(starts()).as("no start tried during the backoff").isEqualTo(before);
    }

    @Test
    void aFailedWakeIsNotTriedAgainUntilItsBackoffHasPassed() throws Exception {
        Http.Response first = Apps.get(url);
        assertThat(first.status()).as(first.body()).isEqualTo(502);
        assertThat(starts()).isEqualTo(1);
        assertBackedOff("5");

        clock.advance(Duration.ofSeconds(4));
        assertBackedOff("1");
        clock.advance(Duration.ofSeconds(1));
        assertThat(Apps.get(url).status()).as("the backoff has passed: tried again").isEqualTo(502);
        assertThat(starts()).isEqualTo(2);
        assertBackedOff("10");

        // the app can start now: served once its backoff has passed, and the backoff starts over
        Files.copy(build.resolve("server.js"), build.resolve("start.js"));
        clock.advance(Duration.ofSeconds(10));
        Http.Response woken = Apps.get(url);
        assertThat(woken.status()).as(woken.body()).isEqualTo(200);
        assertThat(starts()).isEqualTo(3);

        Files.delete(build.resolve("start.js"));
        server.slipway().engine().runtime().stop(deploymentId);
        assertThat(Apps.get(url).status()).isEqualTo(502);
        assertThat(starts()).isEqualTo(4);
        assertBackedOff("5");
    }
}
