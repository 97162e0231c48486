package dev.slipway.router;

import dev.slipway.runtime.AppSpec;
import dev.slipway.runtime.Instance;
import dev.slipway.runtime.RetiringPool;
import dev.slipway.runtime.local.RuntimeFixture;
import dev.slipway.runtime.TestApps;
import dev.slipway.testing.Await;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.MutableClock;
import dev.slipway.testing.RecordingLog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The apps listener's side of wake-on-request, with the real runtime: which addresses it asks the
 * waker about (no route, or a route to a port the runtime no longer serves), and the page for each
 * answer, including the 503 "starting" page once the wait is over.
 */
@EndToEnd
class WakeupsTest {
    RuntimeFixture fixture;
    RouteTable routes;
    AppsListener listener;
    AppsClient client;
    final AppSpec sleeper = TestApps.spec("sleeper", Map.of());
    final Map<String, Integer> asked = new ConcurrentHashMap<>();
    final MutableClock clock = new MutableClock();
    final AppSpec late = TestApps.spec("late", Map.of());
    volatile boolean lateIsLive;

    /**
     * Starts {@code sleeper} for its address; never answers for {@code slow}; {@code gone} cannot start;
     * {@code late} is no app until it is live.
     */
    private CompletableFuture<Waker.Wake> wake(String hostHeader) {
        String label = RouteTable.hostOnly(hostHeader).replace(".localhost", "");
        asked.merge(label, 1, Integer::sum);
        return switch (label) {
            case "sleeper" -> CompletableFuture.supplyAsync(() -> {
                Instance i = fixture.runtime.start(sleeper, new RecordingLog());
                Target t = new Target.Upstream(i.port());
                routes.setProduction("sleeper", t);
                return new Waker.Wake.Serve(t);
            });
            case "slow" -> new CompletableFuture<>();
            case "gone" -> CompletableFuture.completedFuture(new Waker.Wake.Down());
            case "late" -> lateIsLive ? CompletableFuture.supplyAsync(() -> {
                Instance i = fixture.runtime.start(late, new RecordingLog());
                Target t = new Target.Upstream(i.port());
                routes.setProduction("late", t);
                return new Waker.Wake.Serve(t);
            }) : CompletableFuture.completedFuture(new Waker.Wake.NoApp());
            default -> CompletableFuture.completedFuture(new Waker.Wake.NoApp());
        };
    }

    @BeforeEach
    void start() {
        fixture = RuntimeFixture.h2();
        routes = new RouteTable("localhost");
        // a request waits this long for its wake-up: a Node start under CI's load can take over 1.5 s
        listener = AppsListener.start("127.0.0.1", 0, routes, fixture.runtime::restarting,
                new Wakeups(this::wake, fixture.runtime::serves, Duration.ofMillis(5000), clock));
        client = new AppsClient(listener.port());
    }

    @AfterEach
    void stop() {
        listener.close();
        fixture.close();
    }

    private String host(String label) {
        return label + ".localhost:" + listener.port();
    }

    @Test
    void anAddressWithoutARouteIsWokenThenServedByItsRoute() {
        Http.Response first = client.get(host("sleeper"), "/");
        assertThat(first.status()).as(first.body()).isEqualTo(200);
        assertThat(first.body()).isEqualTo("app:sleeper");
        assertThat(client.get(host("sleeper"), "/").body()).isEqualTo("app:sleeper");
        assertThat(asked).as("the second request has a route to a running app").containsEntry("sleeper", 1);
    }

    @Test
    void aRouteToAStoppedAppIsStaleAndWakesItAgain() {
        Instance before = fixture.runtime.start(sleeper, new RecordingLog());
        routes.setProduction("sleeper", new Target.Upstream(before.port()));
        assertThat(client.get(host("sleeper"), "/").body()).isEqualTo("app:sleeper");
        assertThat(asked).isEmpty();

        fixture.runtime.stop(sleeper.deploymentId());
        Http.Response woken = client.get(host("sleeper"), "/");
        assertThat(woken.status()).as(woken.body()).isEqualTo(200);
        assertThat(woken.body()).isEqualTo("app:sleeper");
        assertThat(asked).containsEntry("sleeper", 1);
        assertThat(fixture.runtime.get(sleeper.deploymentId()).orElseThrow().pid()).isNotEqualTo(before.pid());
    }

    @Test
    void theAnswersWhenNothingCanBeWoken() {
        Http.Response slow = client.get(host("slow"), "/");
        assertThat(slow.status()).isEqualTo(503);
        assertThat(slow.header("Retry-After")).isEqualTo("5");
        assertThat(slow.body()).contains("is starting");

        Http.Response gone = client.get(host("gone"), "/");
        assertThat(gone.status()).isEqualTo(502);
        assertThat(gone.body()).contains("not responding");

        assertThat(client.get(host("nothing"), "/").status()).isEqualTo(404);

        // a stale route that cannot be woken keeps the 502 it had before wake-ups
        Instance stopped = fixture.runtime.start(TestApps.spec("old", Map.of()), new RecordingLog());
        routes.setProduction("old", new Target.Upstream(stopped.port()));
        fixture.runtime.stop(stopped.deploymentId());
        assertThat(client.get(host("old"), "/").status()).isEqualTo(502);
        assertThat(asked).containsKeys("slow", "gone", "nothing", "old");
    }

    @Test
    void aRetiredAppStaysUpWhileItHasRequestsAndStopsOnceIdleForTheWindow() {
        Duration window = Duration.ofMillis(400);
        Instance app = fixture.runtime.start(sleeper, new RecordingLog());
        routes.setProduction("sleeper", new Target.Upstream(app.port()));
        List<Integer> stopped = new CopyOnWriteArrayList<>();
        try (RetiringPool pool = new RetiringPool(fixture.runtime, fixture.store, clock, window, id -> false,
                port -> {
                    stopped.add(port);
                    routes.forgetUpstream(port);
                }, listener::lastRequestMillis)) {
            pool.retire(sleeper.deploymentId());
            // a request every 300 ms of the clock: never a whole window without one
            for (int i = 0; i < 3; i++) {
                clock.advance(Duration.ofMillis(300));
                assertThat(client.get(host("sleeper"), "/").body()).isEqualTo("app:sleeper");
                Instant idleAt = clock.instant().plus(window);
                Await.until(Duration.ofSeconds(5), "the stop to be put off to " + idleAt,
                        () -> idleAt.equals(pool.retiring().get(sleeper.deploymentId())));
            }
            assertThat(stopped).isEmpty();
            assertThat(fixture.runtime.get(sleeper.deploymentId()).orElseThrow().pid()).isEqualTo(app.pid());
            assertThat(asked).as("never woken: it kept running").isEmpty();

            // a whole window without a request: stopped, and the next request wakes it
            clock.advance(window);
            // its port is told first (its routes go before its stop), then it is stopped
            Await.until(Duration.ofSeconds(5), "the idle app to be stopped",
                    () -> !stopped.isEmpty() && fixture.runtime.get(sleeper.deploymentId()).isEmpty());
            assertThat(stopped).containsExactly(app.port());
            assertThat(TestApps.alive(app.pid())).isFalse();
            assertThat(client.get(host("sleeper"), "/").body()).isEqualTo("app:sleeper");
            assertThat(asked).containsEntry("sleeper", 1);
        }
    }

    @Test
    void anAddressOfNoAppIsRememberedForAFewSecondsOrUntilARouteIsLearned() {
        for (int i = 0; i < 5; i++) assertThat(client.get(host("nothing"), "/").status()).isEqualTo(404);
        assertThat(asked).as("the store is asked once").containsEntry("nothing", 1);
        clock.advance(Duration.ofMillis(4_999));
        assertThat(client.get(host("nothing"), "/").status()).isEqualTo(404);
        assertThat(asked).containsEntry("nothing", 1);
        clock.advance(Duration.ofMillis(1));
        assertThat(client.get(host("nothing"), "/").status()).isEqualTo(404);
        assertThat(asked).as("asked again once the few seconds have passed").containsEntry("nothing", 2);

        // not live yet, then live (its route learned), then retired (its route forgotten): woken, not a 404
        assertThat(client.get(host("late"), "/").status()).isEqualTo(404);
        assertThat(client.get(host("late"), "/").status()).isEqualTo(404);
        assertThat(asked).containsEntry("late", 1);
        lateIsLive = true;
        Instance live = fixture.runtime.start(late, new RecordingLog());
        routes.setProduction("late", new Target.Upstream(live.port()));
        assertThat(client.get(host("late"), "/").body()).isEqualTo("app:late");
        fixture.runtime.stop(late.deploymentId());
        routes.forgetUpstream(live.port());
        Http.Response woken = client.get(host("late"), "/");
        assertThat(woken.status()).as(woken.body()).isEqualTo(200);
        assertThat(woken.body()).isEqualTo("app:late");
        assertThat(asked).containsEntry("late", 2);
        assertThat(client.get(host("nothing"), "/").status()).isEqualTo(404);
        assertThat(asked).as("any route learned forgets the unknown addresses").containsEntry("nothing", 3);
    }
}
