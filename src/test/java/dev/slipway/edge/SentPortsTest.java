package dev.slipway.edge;

import dev.slipway.core.Json;
import dev.slipway.router.RouteTable;
import dev.slipway.router.SiteRules;
import dev.slipway.router.Target;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The app ports an edge is told serve and restart are those the server's routes reach that do, after every kind of
 * route change and every change of serving the runtime tells, while a route change looks only at its own routes' ports.
 */
class SentPortsTest {
    private final Random random = new Random(20261129);

    @Test
    void theEdgesPortsAreTheRoutesPortsThatServeAfterEveryKindOfChange() throws Exception {
        RouteTable server = new RouteTable("apps.test");
        server.onChange(() -> { });
        SentPorts sent = new SentPorts();
        Set<Integer> serves = ports();
        Set<Integer> restarts = ports();
        EdgeMessages.Table first = sent.whole(server, serves::contains, restarts::contains);
        Set<Integer> edgeServing = new HashSet<>(first.serving());
        Set<Integer> edgeRestarting = new HashSet<>(first.restarting());
        int portChanges = 0;
        for (int step = 0; step < 3000; step++) {
            boolean told = random.nextInt(4) == 0;
            if (told) { // the runtime tells a change of serving: every port is looked at
                serves = ports();
                restarts = ports();
            } else {
                change(server);
            }
            EdgeMessages.Changes c = sent.changes(server.takeChanges(), told, serves::contains, restarts::contains);
            // as the edge reads them
            EdgeMessages.Changes got = EdgeMessages.changes(Json.MAPPER.readTree(EdgeMessages.changes(c).toString()));
            if (!got.serving().none() || !got.restarting().none()) portChanges++;
            got.serving().applyIn(edgeServing);
            got.restarting().applyIn(edgeRestarting);
            Set<Integer> reached = reached(server);
            assertThat(edgeServing).as("step %d: the ports that serve", step).isEqualTo(only(reached, serves));
            assertThat(edgeRestarting).as("step %d: the ports that restart", step).isEqualTo(only(reached, restarts));
        }
        assertThat(portChanges).as("steps that changed the ports sent").isGreaterThan(500);
    }

    @Test
    void aRouteChangeLooksAtItsOwnPortsAloneAndATellingAtAll() {
        RouteTable server = new RouteTable("apps.test");
        server.onChange(() -> { });
        for (int p = 0; p < 5000; p++) {
            Target t = new Target.Upstream(10_000 + p);
            server.setLive("p" + p, "d" + p, t, t);
        }
        SentPorts sent = new SentPorts();
        AtomicInteger looked = new AtomicInteger();
        IntPredicate serves = port -> looked.incrementAndGet() > 0 && port != 10_007;
        IntPredicate restarts = port -> false;
        server.forgetChanges(); // as the link does before a whole table
        EdgeMessages.Table first = sent.whole(server, serves, restarts);
        assertThat(first.serving()).hasSize(4999).doesNotContain(10_007);

        looked.set(0);
        server.setProduction("p1", new Target.Upstream(10_002)); // p1's deployment still reaches 10,001
        EdgeMessages.Changes c = sent.changes(server.takeChanges(), false, serves, restarts);
        assertThat(looked.get()).as("ports looked at for one switch").isLessThanOrEqualTo(2);
        assertThat(c.serving().none()).isTrue();

        server.removeProject("p3"); // the last routes to 10,003
        c = sent.changes(server.takeChanges(), false, serves, restarts);
        assertThat(c.serving().gone()).containsExactly(10_003);

        looked.set(0);
        c = sent.changes(server.takeChanges(), true, port -> looked.incrementAndGet() > 0, restarts);
        assertThat(looked.get()).as("a telling looks at every port").isEqualTo(4999);
        assertThat(c.serving().added()).containsExactly(10_007);
    }

    @Test
    void aProductionAndADeploymentOfTheSameNameAreCountedApart() {
        RouteTable server = new RouteTable("apps.test");
        server.onChange(() -> { });
        server.setProduction("shop-a1", new Target.Upstream(4001));
        server.setDeployment("shop", "a1", new Target.Upstream(4002));
        SentPorts sent = new SentPorts();
        server.forgetChanges();
        EdgeMessages.Table first = sent.whole(server, port -> true, port -> false);
        assertThat(first.serving()).containsExactlyInAnyOrder(4001, 4002);
        server.removeProduction("shop-a1");
        EdgeMessages.Changes c = sent.changes(server.takeChanges(), false, port -> true, port -> false);
        assertThat(c.serving().gone()).containsExactly(4001);
        assertThat(c.serving().added()).isEmpty();
    }

    /** The loopback ports the table's routes reach. */
    private static Set<Integer> reached(RouteTable t) {
        Set<Integer> out = new HashSet<>();
        t.forEachTarget(target -> {
            for (Target.Upstream u : target.upstreams()) if (u.loopback()) out.add(u.port());
        });
        return out;
    }

    private static Set<Integer> only(Set<Integer> reached, Set<Integer> those) {
        Set<Integer> out = new HashSet<>(reached);
        out.retainAll(those);
        return out;
    }

    private Set<Integer> ports() {
        Set<Integer> out = new HashSet<>();
        for (int i = random.nextInt(6); i > 0; i--) out.add(4000 + random.nextInt(8));
        return out;
    }

    /** One change of the server's table, of any kind it makes. */
    private void change(RouteTable t) {
        String project = "p" + random.nextInt(12);
        String other = "p" + random.nextInt(12);
        String id = "d" + random.nextInt(4);
        Target target = target();
        switch (random.nextInt(13)) {
            case 0, 1 -> t.setProduction(project, target);
            case 2 -> t.removeProduction(project);
            case 3, 4 -> t.setDeployment(project, id, target);
            case 5, 6 -> t.setLive(project, id, target, target());
            case 7 -> t.removeDeployment(project, id);
            case 8 -> t.renameProject(project, other);
            case 9 -> t.removeProject(project);
            case 10 -> t.forgetUpstream(4000 + random.nextInt(8));
            case 11 -> t.setDomain("www." + project + ".example", other);
            default -> {
                var current = t.production(project);
                if (current.isPresent()) t.replaceTarget(current.get(), target);
            }
        }
    }

    private Target target() {
        return switch (random.nextInt(4)) {
            case 0 -> new Target.Pool(List.of(new Target.Upstream(4000 + random.nextInt(4)),
                    new Target.Upstream(4004 + random.nextInt(4))));
            case 1 -> new Target.StaticSite(Path.of("/srv/sites/" + random.nextInt(3)), random.nextBoolean(), SiteRules.NONE);
            case 2 -> new Target.Upstream("10.0.0." + (1 + random.nextInt(3)), 8080);
            default -> new Target.Upstream(4000 + random.nextInt(8));
        };
    }
}
