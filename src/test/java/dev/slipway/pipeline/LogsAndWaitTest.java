package dev.slipway.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.logs.Level;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Await;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.ServerPerStore;
import dev.slipway.testing.TestServer;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code ?wait=} long-polls, log pages ({@code ?after=&limit=}) and live logs over server-sent events. */
@EachStore
@EndToEnd
class LogsAndWaitTest {
    /** A build writing two lines to stdout and two to stderr every 40 ms for 4 s: concurrent log writers. */
    private static final String BUSY_BUILD = "let i=0;setInterval(()=>{for(let k=0;k<2;k++){console.log('out '+i+'.'+k);"
            + "console.error('err '+i+'.'+k)}if(++i>=100)process.exit(0)},40)";

    final Dialect kind = server.kind();

    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.withGit();
    static TestServer.Tenant tenant;
    static Runs runs;

    @EachStore.Before
    static void start() {
        // the followers here poll as fast as they can; a 429 page would look like the end of a log
        tenant = server.tenant(Tier.TEAM, 1_000_000);
        runs = new Runs(tenant.http());
    }

    private String repo(String name) {
        String repo = "acme/" + name + "-" + kind.name().toLowerCase();
        server.git().createRepo(repo);
        return repo;
    }

    private record Timed(Http.Response response, Duration took) {
        JsonNode data() { return response.json().get("data"); }
    }

    private static Timed timed(Supplier<Http.Response> request) {
        long start = System.nanoTime();
        Http.Response r = request.get();
        return new Timed(r, Duration.ofNanos(System.nanoTime() - start));
    }

    @Test
    void waitReturnsWhenTheStatusChangesOrAtTheDeadline() {
        String repo = repo("wait");
        server.git().commit(repo, "main", NodeApp.version("v1"), "v1");
        String migration = runs.migrate(repo);
        runs.awaitMigration(migration, "complete");
        String projectId = runs.projectOf(migration);
        String live = runs.firstDeployment(projectId);

        // a deployment that is live is answered at once (its run is over), like a finished migration
        Timed liveWait = timed(() -> runs.http().get("/v1/deployments/" + live + "?wait=30"));
        assertThat(liveWait.data().get("status").asText()).isEqualTo("live");
        assertThat(liveWait.took()).isLessThan(Duration.ofSeconds(2));
        // a finished record is answered at once
        Timed completeWait = timed(() -> runs.http().get("/v1/migrations/" + migration + "?wait=30"));
        assertThat(completeWait.data().get("status").asText()).isEqualTo("complete");
        assertThat(completeWait.took()).isLessThan(Duration.ofSeconds(2));

        // a deployment building for 8 s and one queued behind it
        server.git().commit(repo, "main", NodeApp.slowBuild("v2", 8_000, Runs.marker("wait")), "v2, slow");
        String building = runs.deploy(projectId);
        runs.await("deployments", building, "building", Duration.ofSeconds(60));
        String queued = runs.deploy(projectId);
        Timed queuedWait = timed(() -> runs.http().get("/v1/deployments/" + queued + "?wait=2"));
        assertThat(queuedWait.data().get("status").asText()).isEqualTo("queued");
        assertThat(queuedWait.took()).isBetween(Duration.ofMillis(1900), Duration.ofSeconds(5));

        // the status changes: the answer comes at once, long before the deadline
        CompletableFuture<Timed> buildingMoves = CompletableFuture.supplyAsync(
                () -> timed(() -> runs.http().get("/v1/deployments/" + building + "?wait=60")));
        CompletableFuture<Timed> queuedMoves = CompletableFuture.supplyAsync(
                () -> timed(() -> runs.http().get("/v1/deployments/" + queued + "?wait=60")));
        long cancelled = System.nanoTime();
        assertThat(runs.http().send("POST", "/v1/deployments/" + queued + "/cancel", null, null).status()).isEqualTo(200);
        Timed afterCancel = queuedMoves.join();
        assertThat(afterCancel.data().get("status").asText()).isEqualTo("failed");
        assertThat(Duration.ofNanos(System.nanoTime() - cancelled)).isLessThan(Duration.ofSeconds(2));
        Timed afterBuild = buildingMoves.join();
        Instant answered = Instant.now();
        assertThat(afterBuild.data().get("status").asText()).isIn("deploying", "live");
        assertThat(afterBuild.took()).as("waited for the build").isBetween(Duration.ofSeconds(2), Duration.ofSeconds(40));
        Instant moved = logEntries("deployments", building, "").stream()
                .filter(e -> e.get("message").asText().startsWith("Build finished in"))
                .map(e -> Instant.parse(e.get("timestamp").asText())).findFirst().orElseThrow();
        assertThat(Duration.between(moved, answered)).as("from the status change to the answer")
                .isBetween(Duration.ZERO, Duration.ofMillis(1500));

        // a migration moves from processing to complete
        String slowRepo = repo("wait-migration");
        server.git().commit(slowRepo, "main", NodeApp.slowBuild("m1", 6_000, Runs.marker("wait-m")), "slow");
        String slowMigration = runs.migrate(slowRepo);
        assertThat(runs.migration(slowMigration).get("status").asText()).isEqualTo("processing");
        Timed migrationWait = timed(() -> runs.http().get("/v1/migrations/" + slowMigration + "?wait=60"));
        assertThat(migrationWait.data().get("status").asText()).isIn("complete", "failed");
        assertThat(migrationWait.took()).isLessThan(Duration.ofSeconds(40));

        // wait is 0..60 whole seconds
        for (String bad : List.of("61", "-1", "abc", "1.5", "9999999999")) {
            for (String path : List.of("/v1/deployments/" + live, "/v1/migrations/" + migration)) {
                var r = runs.http().get(path + "?wait=" + bad);
                assertThat(r.status()).as(path + "?wait=" + bad).isEqualTo(400);
                assertThat(r.json().at("/error/code").asText()).isEqualTo("invalid_request");
                assertThat(r.json().at("/error/details/wait").asText()).contains("60");
            }
        }
        assertThat(runs.http().get("/v1/deployments/" + live + "?wait=0").status()).isEqualTo(200);
    }

    @Test
    void logsPageWithoutGapsAndStreamLiveUntilTheRunEnds() {
        String repo = repo("stream");
        server.git().commit(repo, "main", NodeApp.withBuild("s1", BUSY_BUILD), "busy build");
        String migration = runs.migrate(repo);
        String projectId = runs.projectOf(migration);
        String deployment = runs.firstDeployment(projectId);

        // both logs followed live from the start
        try (Sse migrationStream = Sse.open(server.baseUrl() + "/v1/migrations/" + migration + "/logs", tenant.key(), null);
             Sse deploymentStream = Sse.open(server.baseUrl() + "/v1/deployments/" + deployment + "/logs", tenant.key(), null)) {
            for (Sse s : List.of(migrationStream, deploymentStream)) {
                assertThat(s.status).isEqualTo(200);
                assertThat(s.headers.get("content-type").getFirst()).startsWith("text/event-stream");
            }
            Sse.Event first = deploymentStream.next(Duration.ofSeconds(10));
            assertThat(first.name()).isEqualTo("log");
            assertThat(runs.deployment(deployment).get("status").asText()).as("status when the first entry arrived")
                    .isIn("queued", "building");

            List<Sse.Event> deploymentEvents = new ArrayList<>(List.of(first));
            deploymentEvents.addAll(deploymentStream.untilEnd(Runs.RUN));
            List<Sse.Event> migrationEvents = migrationStream.untilEnd(Runs.RUN);
            assertThat(deploymentStream.closedByServer(Duration.ofSeconds(5))).as("stream closed after end").isTrue();
            assertThat(migrationStream.closedByServer(Duration.ofSeconds(5))).as("stream closed after end").isTrue();
            assertThat(runs.deployment(deployment).get("status").asText()).isEqualTo("live");
            assertThat(runs.migration(migration).get("status").asText()).isEqualTo("complete");

            // live: the build's output arrived while it ran, seconds before the end
            Sse.Event firstOutput = deploymentEvents.stream().filter(e -> e.json().get("message").asText().startsWith("out 0."))
                    .findFirst().orElseThrow();
            Sse.Event last = deploymentEvents.getLast();
            assertThat(Duration.ofNanos(last.arrivedNanos() - firstOutput.arrivedNanos())).isGreaterThan(Duration.ofSeconds(2));

            // the streams hold every entry of the logs, in order, the run's final entry included, then end
            assertStreamIsTheLog(deploymentEvents, "deployments", deployment, "Deployment is live");
            assertStreamIsTheLog(migrationEvents, "migrations", migration, "Migration complete");
            assertThat(messages(deploymentEvents)).filteredOn(m -> m.startsWith("out ") || m.startsWith("err ")).hasSize(400);

            // Last-Event-ID resumes after that entry (and the finished run's stream ends at once)
            Sse.Event resumeAfter = deploymentEvents.get(deploymentEvents.size() / 2);
            try (Sse resumed = Sse.open(server.baseUrl() + "/v1/deployments/" + deployment + "/logs", tenant.key(), resumeAfter.id())) {
                List<Sse.Event> rest = resumed.untilEnd(Duration.ofSeconds(10));
                List<JsonNode> all = logEntries("deployments", deployment, "");
                assertThat(json(rest)).isEqualTo(all.subList(deploymentEvents.size() / 2 + 1, all.size()));
            }
            // ids are the same cursors ?after= takes
            List<JsonNode> afterCursor = logEntries("deployments", deployment, "?after=" + resumeAfter.id());
            assertThat(afterCursor.getFirst()).isEqualTo(deploymentEvents.get(deploymentEvents.size() / 2 + 1).json());
        }

        // pages of 7 through the whole log: no gap, no duplicate, in order
        List<JsonNode> whole = logEntries("deployments", deployment, "");
        assertThat(whole.size()).isGreaterThan(400);
        List<JsonNode> paged = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        while (true) {
            JsonNode page = runs.http().get("/v1/deployments/" + deployment + "/logs?limit=7"
                    + (cursor == null ? "" : "&after=" + cursor)).json();
            page.at("/data/logs").forEach(paged::add);
            assertThat(page.at("/data/logs").size()).isLessThanOrEqualTo(7);
            pages++;
            if (!page.at("/pagination/has_more").asBoolean()) break;
            assertThat(page.at("/data/logs").size()).isEqualTo(7);
            cursor = page.at("/pagination/next_cursor").asText();
        }
        assertThat(paged).isEqualTo(whole);
        assertThat(pages).isEqualTo((whole.size() + 6) / 7);
        for (String bad : List.of("limit=0", "limit=5001", "limit=x", "after=zzz", "after=l-1")) {
            var r = runs.http().get("/v1/deployments/" + deployment + "/logs?" + bad);
            assertThat(r.status()).as(bad).isEqualTo(400);
        }
    }

    @Test
    void aFollowerPagingWithAfterMissesNoEntryOfConcurrentWriters() throws Exception {
        String repo = repo("writers");
        server.git().commit(repo, "main", NodeApp.version("w1"), "w1");
        String migration = runs.migrate(repo);
        runs.awaitMigration(migration, "complete");
        String deployment = runs.firstDeployment(runs.projectOf(migration));
        int before = logEntries("deployments", deployment, "?limit=5000").size();

        // four writers at once, as a build's stdout and stderr pumps and its runner write one log
        int writers = 4, each = 400;
        List<Thread> threads = new ArrayList<>();
        List<Throwable> writerFailures = new CopyOnWriteArrayList<>();
        for (int w = 0; w < writers; w++) {
            var sink = server.slipway().stores().logs().sink(deployment, List.of());
            int writer = w;
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    for (int i = 0; i < each; i++) sink.log(Level.INFO, "writer " + writer + " line " + i);
                } catch (Throwable t) {
                    writerFailures.add(t);
                }
            }));
        }
        // a client tailing the log through the API, page after page from its last cursor, as fast as it can
        var follower = runs.http();
        List<JsonNode> followed = new ArrayList<>();
        String cursor = null;
        boolean writing = true;
        while (true) {
            boolean wasWriting = writing;
            var response = follower.get("/v1/deployments/" + deployment + "/logs?limit=5000"
                    + (cursor == null ? "" : "&after=" + cursor));
            assertThat(response.status()).as("a page of the followed log").isEqualTo(200);
            JsonNode page = response.json();
            page.at("/data/logs").forEach(followed::add);
            if (!page.at("/pagination/next_cursor").isNull()) cursor = page.at("/pagination/next_cursor").asText();
            writing = threads.stream().anyMatch(Thread::isAlive);
            if (!wasWriting && page.at("/data/logs").isEmpty()) break;
        }
        for (Thread t : threads) t.join();
        assertThat(writerFailures).as("failures of the writers").isEmpty();
        assertThat(followed).as("entries a follower saw").hasSize(before + writers * each);
        assertThat(followed).isEqualTo(logEntries("deployments", deployment, "?limit=5000"));
    }

    private void assertStreamIsTheLog(List<Sse.Event> events, String kind, String id, String finalEntry) {
        List<JsonNode> log = logEntries(kind, id, "");
        int end = -1;
        for (int i = 0; i < log.size(); i++) {
            if (log.get(i).get("message").asText().startsWith(finalEntry)) end = i;
        }
        assertThat(end).as("the final entry of " + id).isGreaterThanOrEqualTo(0);
        assertThat(events.size()).as("entries streamed of " + id).isGreaterThan(end);
        assertThat(json(events)).as("the stream of " + id).isEqualTo(log.subList(0, events.size()));
        for (Sse.Event e : events) assertThat(e.id()).startsWith("l");
    }

    private List<JsonNode> logEntries(String kind, String id, String query) {
        var r = runs.http().get("/v1/" + kind + "/" + id + "/logs" + query);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        List<JsonNode> out = new ArrayList<>();
        r.json().at("/data/logs").forEach(out::add);
        return out;
    }

    private static List<JsonNode> json(List<Sse.Event> events) {
        return events.stream().map(Sse.Event::json).toList();
    }

    private static List<String> messages(List<Sse.Event> events) {
        return events.stream().map(e -> e.json().get("message").asText()).toList();
    }
}
