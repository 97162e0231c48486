package dev.slipway.router;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * What differs between two {@link RouteTable.Snapshot}s: the routes set (new, or pointing elsewhere now) and the keys
 * of those gone. A separate edge process is sent these rather than the whole table, so that one route change costs
 * the same on an install of any size.
 */
public record RouteChanges(RouteTable.Snapshot set, Set<String> goneProduction, Set<String> goneDeployments,
                           Set<String> goneDomains) {
    public RouteChanges {
        goneProduction = Set.copyOf(goneProduction);
        goneDeployments = Set.copyOf(goneDeployments);
        goneDomains = Set.copyOf(goneDomains);
    }

    /** The changes that make {@code before} into {@code after}. */
    public static RouteChanges between(RouteTable.Snapshot before, RouteTable.Snapshot after) {
        return new RouteChanges(
                new RouteTable.Snapshot(changed(before.production(), after.production()),
                        changed(before.deployments(), after.deployments()), changed(before.domains(), after.domains())),
                gone(before.production(), after.production()), gone(before.deployments(), after.deployments()),
                gone(before.domains(), after.domains()));
    }

    public boolean none() {
        return set.production().isEmpty() && set.deployments().isEmpty() && set.domains().isEmpty() && goneProduction.isEmpty()
                && goneDeployments.isEmpty() && goneDomains.isEmpty();
    }

    private static <V> Map<String, V> changed(Map<String, V> before, Map<String, V> after) {
        Map<String, V> out = new HashMap<>();
        after.forEach((k, v) -> {
            if (!v.equals(before.get(k))) out.put(k, v);
        });
        return out;
    }

    private static Set<String> gone(Map<String, ?> before, Map<String, ?> after) {
        Set<String> out = new HashSet<>();
        for (String k : before.keySet()) {
            if (!after.containsKey(k)) out.add(k);
        }
        return out;
    }
}
