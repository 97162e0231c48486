package dev.slipway.edge;

import dev.slipway.router.RouteChanges;
import dev.slipway.router.RouteTable;
import dev.slipway.router.Target;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.IntPredicate;

/**
 * The app ports the routes sent to an edge reach, counted by route, and which of them it was told serve and restart.
 * A route change looks only at the ports of the routes it touched, so it costs the size of the change, not of the
 * install; every port the routes reach is looked at for a change of serving that the runtime told (an app starts
 * stopping, crashed, answers again) and for the sync loop's regular check. Not thread-safe: the link holds its push
 * lock.
 */
final class SentPorts {
    /** The loopback ports each route reaches (production and deployments apart: their keys may be alike). */
    private final Map<String, int[]> production = new HashMap<>();
    private final Map<String, int[]> deployments = new HashMap<>();
    /** Port → the routes that reach it. */
    private final Map<Integer, Integer> routes = new HashMap<>();
    private final Set<Integer> serving = new HashSet<>();
    private final Set<Integer> restarting = new HashSet<>();
    private RouteTable table;

    /** Whether these are the ports of {@code t}'s routes as last sent (not of another table, nor of none yet). */
    boolean of(RouteTable t) {
        return table == t;
    }

    /** Forgets everything: the next message is a whole table. */
    void clear() {
        production.clear();
        deployments.clear();
        routes.clear();
        serving.clear();
        restarting.clear();
        table = null;
    }

    /** {@code t} whole, its ports found anew: the serving and restarting ones to send with it. */
    EdgeMessages.Table whole(RouteTable t, IntPredicate serves, IntPredicate restarts) {
        clear();
        RouteTable.Snapshot snapshot = t.snapshot();
        table = t;
        snapshot.production().forEach((k, target) -> set(production, k, target));
        snapshot.deployments().forEach((k, d) -> set(deployments, k, d.getValue()));
        for (int port : routes.keySet()) {
            if (serves.test(port)) serving.add(port);
            if (restarts.test(port)) restarting.add(port);
        }
        return new EdgeMessages.Table(snapshot, Set.copyOf(serving), Set.copyOf(restarting));
    }

    /**
     * Counts the changed routes' ports; which of the ports they reached before or reach now serve and restart now (a
     * port no route reaches any more is sent as neither), and with {@code everyPort} which of all the routes' ports do.
     */
    EdgeMessages.Changes changes(RouteChanges c, boolean everyPort, IntPredicate serves, IntPredicate restarts) {
        Set<Integer> touched = new HashSet<>();
        c.set().production().forEach((k, target) -> touched(touched, set(production, k, target)));
        c.set().deployments().forEach((k, d) -> touched(touched, set(deployments, k, d.getValue())));
        c.goneProduction().forEach(k -> touched(touched, remove(production, k)));
        c.goneDeployments().forEach(k -> touched(touched, remove(deployments, k)));
        Delta servingNow = new Delta(serving);
        Delta restartingNow = new Delta(restarting);
        for (int port : touched) check(port, serves, restarts, servingNow, restartingNow);
        if (everyPort) for (int port : routes.keySet()) check(port, serves, restarts, servingNow, restartingNow);
        return new EdgeMessages.Changes(c, servingNow.ports(), restartingNow.ports());
    }

    private void check(int port, IntPredicate serves, IntPredicate restarts, Delta servingNow, Delta restartingNow) {
        boolean reached = routes.containsKey(port);
        servingNow.is(port, reached && serves.test(port));
        restartingNow.is(port, reached && restarts.test(port));
    }

    /** A sent set as it changes: the ports added and gone. */
    private record Delta(Set<Integer> sent, Set<Integer> added, Set<Integer> gone) {
        Delta(Set<Integer> sent) {
            this(sent, new HashSet<>(), new HashSet<>());
        }

        void is(int port, boolean in) {
            if (in && sent.add(port)) added.add(port);
            if (!in && sent.remove(port)) gone.add(port);
        }

        EdgeMessages.Ports ports() {
            return new EdgeMessages.Ports(added, gone);
        }
    }

    /** The route's ports as they were, and as they are now, both counted; returns the ports whose count changed. */
    private int[][] set(Map<String, int[]> byKey, String key, Target target) {
        int[] now = loopbackPorts(target);
        int[] before = now.length == 0 ? byKey.remove(key) : byKey.put(key, now);
        count(before, -1);
        count(now, 1);
        return new int[][]{before, now};
    }

    private int[][] remove(Map<String, int[]> byKey, String key) {
        int[] before = byKey.remove(key);
        count(before, -1);
        return new int[][]{before};
    }

    private static void touched(Set<Integer> touched, int[][] ports) {
        for (int[] some : ports) {
            if (some != null) for (int p : some) touched.add(p);
        }
    }

    private void count(int[] ports, int by) {
        if (ports == null) return;
        for (int p : ports) routes.merge(p, by, (a, b) -> a + b == 0 ? null : a + b);
    }

    private static int[] loopbackPorts(Target target) {
        return target.upstreams().stream().filter(Target.Upstream::loopback).mapToInt(Target.Upstream::port).distinct()
                .toArray();
    }
}
