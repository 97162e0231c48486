package dev.slipway.edge;

import dev.slipway.core.Json;
import dev.slipway.router.RouteChanges;
import dev.slipway.router.RouteTable;
import dev.slipway.router.SiteRules;
import dev.slipway.router.Target;
import dev.slipway.testing.Await;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An edge that is sent only a table's changes serves what the server's table holds, after every kind of route change:
 * the changes, as the channel carries them, applied to the edge's table and port sets give the server's own.
 */
class EdgeChangesMessageTest {
    private final Random random = new Random(20261129);

    @Test
    void changesAppliedOneAfterAnotherGiveTheServersTableAfterEveryKindOfChange() throws Exception {
        RouteTable server = new RouteTable("apps.test");
        server.onChange(() -> { }); // keeps the keys each change touches
        RouteTable edge = new RouteTable("apps.test");
        RouteTable reconnecting = new RouteTable("apps.test"); // sent the whole table now and then, as on a new connection
        EdgeMessages.Table sent = table(server, Set.of(), Set.of());
        Set<Integer> edgeServing = new HashSet<>();
        Set<Integer> edgeRestarting = new HashSet<>();
        int messages = 0;
        for (int step = 0; step < 3000; step++) {
            change(server);
            EdgeMessages.Table now = table(server, ports(), ports());
            EdgeMessages.Changes changes = changes(server, sent, now);
            if (changes.none()) {
                assertThat(edge.snapshot()).as("step %d: nothing to send", step).isEqualTo(server.snapshot());
                assertThat(now.serving()).isEqualTo(sent.serving());
                continue;
            }
            String line = EdgeMessages.changes(changes).toString();
            EdgeMessages.Changes got = EdgeMessages.changes(Json.MAPPER.readTree(line));
            got.serving().applyIn(edgeServing);
            got.restarting().applyIn(edgeRestarting);
            edge.apply(got.routes());
            messages++;
            assertThat(edge.snapshot()).as("step %d: the edge's routes", step).isEqualTo(server.snapshot());
            assertThat(edgeServing).as("step %d: the ports that serve", step).isEqualTo(now.serving());
            assertThat(edgeRestarting).as("step %d: the ports that restart", step).isEqualTo(now.restarting());
            if (random.nextInt(25) == 0) {
                reconnecting.replace(EdgeMessages.table(Json.MAPPER.readTree(EdgeMessages.table(now).toString())).routes());
                assertThat(reconnecting.snapshot()).as("step %d: a whole table after others", step).isEqualTo(server.snapshot());
            }
            sent = now;
        }
        assertThat(messages).as("changes sent").isGreaterThan(2000);
        assertThat(server.snapshot().production()).as("the table is not empty at the end").isNotEmpty();
    }

    /**
     * Writers change the table while one thread takes the changes. Each writer waits, after every chunk of its changes,
     * until two more takes have begun, so takes run between the writes whatever the scheduler does.
     */
    @Test
    void changesTakenWhileOtherThreadsChangeTheTableLoseNone() throws Exception {
        RouteTable server = new RouteTable("apps.test");
        server.onChange(() -> { });
        RouteTable edge = new RouteTable("apps.test");
        int writers = 4;
        int chunk = 200;
        AtomicLong takes = new AtomicLong();
        CountDownLatch done = new CountDownLatch(writers);
        try (ExecutorService pool = Executors.newFixedThreadPool(writers)) {
            List<Future<?>> running = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                long seed = 1000 + w;
                running.add(pool.submit(() -> {
                    Random own = new Random(seed);
                    try {
                        for (int i = 1; i <= 3000; i++) {
                            change(server, own);
                            if (i % chunk == 0) {
                                long seen = takes.get();
                                Await.until(Duration.ofSeconds(20), "two takes after a chunk of changes", () -> takes.get() >= seen + 2);
                            }
                        }
                    } finally {
                        done.countDown();
                    }
                }));
            }
            int taken = 0;
            while (done.getCount() > 0) {
                RouteChanges c = server.takeChanges();
                takes.incrementAndGet();
                if (!c.none()) taken++;
                edge.apply(c);
            }
            for (Future<?> f : running) f.get(); // a writer's failure fails the test
            edge.apply(server.takeChanges()); // what the writers' last changes touched
            assertThat(edge.snapshot()).isEqualTo(server.snapshot());
            assertThat(taken).as("takes that found changes: at least one per chunk of a writer's").isGreaterThanOrEqualTo(3000 / chunk);
        }
    }

    @Test
    void aChangeCarriesWhatChangedNotTheWholeTable() throws Exception {
        RouteTable server = new RouteTable("apps.test");
        server.onChange(() -> { });
        for (int p = 0; p < 500; p++) server.setLive("p" + p, "d" + p, new Target.Upstream(5000 + p), new Target.Upstream(5000 + p));
        EdgeMessages.Table before = table(server, Set.of(4100), Set.of());
        server.forgetChanges(); // the whole table was sent
        server.setProduction("p7", new Target.Upstream(7777));
        server.removeDeployment("p8", "d8");
        String line = EdgeMessages.changes(changes(server, before, table(server, Set.of(4200), Set.of()))).toString();
        assertThat(Json.MAPPER.readTree(line)).isEqualTo(Json.MAPPER.readTree("""
                {"op":"changes","production":{"p7":{"host":"127.0.0.1","port":7777}},"deployments":{},"domains":{},
                 "gone":{"production":[],"deployments":["p8-d8"],"domains":[]},
                 "serving":{"added":[4200],"gone":[4100]},"restarting":{"added":[],"gone":[]}}"""));
    }

    /** What the server sends an edge that was sent {@code sent}: the routes its changes touched, and the ports' changes. */
    private static EdgeMessages.Changes changes(RouteTable server, EdgeMessages.Table sent, EdgeMessages.Table now) {
        return new EdgeMessages.Changes(server.takeChanges(), between(sent.serving(), now.serving()),
                between(sent.restarting(), now.restarting()));
    }

    private static EdgeMessages.Ports between(Set<Integer> before, Set<Integer> after) {
        Set<Integer> added = new HashSet<>(after);
        added.removeAll(before);
        Set<Integer> gone = new HashSet<>(before);
        gone.removeAll(after);
        return new EdgeMessages.Ports(added, gone);
    }

    private static EdgeMessages.Table table(RouteTable routes, Set<Integer> serving, Set<Integer> restarting) {
        return new EdgeMessages.Table(routes.snapshot(), serving, restarting);
    }

    private Set<Integer> ports() {
        Set<Integer> out = new HashSet<>();
        for (int i = random.nextInt(4); i > 0; i--) out.add(4000 + random.nextInt(8));
        return out;
    }

    /** One change of the server's table, of any kind it makes. */
    private void change(RouteTable t) {
        change(t, random);
    }

    private static void change(RouteTable t, Random random) {
        String project = "p" + random.nextInt(12);
        String other = "p" + random.nextInt(12);
        String id = "d" + random.nextInt(4);
        Target target = target(random);
        switch (random.nextInt(14)) {
            case 0, 1 -> t.setProduction(project, target);
            case 2 -> t.removeProduction(project);
            case 3, 4 -> t.setDeployment(project, id, target);
            case 5, 6 -> t.setLive(project, id, target, target(random));
            case 7 -> t.removeDeployment(project, id);
            case 8 -> t.setDomain("www." + project + ".example", random.nextBoolean() ? project : other);
            case 9 -> t.syncDomain(project, random.nextBoolean() ? null : "shop" + random.nextInt(3) + ".example");
            case 10 -> t.renameProject(project, other);
            case 11 -> t.removeProject(project);
            case 12 -> t.forgetUpstream(4000 + random.nextInt(8));
            default -> {
                var current = t.production(project);
                if (current.isPresent()) t.replaceTarget(current.get(), target);
            }
        }
    }

    private static Target target(Random random) {
        return switch (random.nextInt(4)) {
            case 0 -> new Target.Pool(List.of(new Target.Upstream(4000 + random.nextInt(4)), new Target.Upstream(4004 + random.nextInt(4))));
            case 1 -> new Target.StaticSite(Path.of("/srv/sites/" + random.nextInt(3)), random.nextBoolean(), SiteRules.NONE);
            case 2 -> new Target.Upstream("10.0.0." + (1 + random.nextInt(3)), 8080);
            default -> new Target.Upstream(4000 + random.nextInt(8));
        };
    }
}
