package dev.slipway.router;

import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Hosts the waker found no deployment at, remembered for a few seconds so that a flood of requests
 * for them is answered without asking the store each time. A route learned since (a deployment went
 * live, a production or domain was set) forgets them all: one of them may be its address.
 */
final class UnknownHosts {
    static final long REMEMBER_MS = 5_000;
    static final int MAX_HOSTS = 10_000;

    private record Entry(long untilMillis, long routesVersion) {}

    private final Clock clock;
    private final RouteTable routes;
    private final Map<String, Entry> hosts = new ConcurrentHashMap<>();

    UnknownHosts(Clock clock, RouteTable routes) {
        this.clock = clock;
        this.routes = routes;
    }

    boolean contains(String host) {
        Entry e = hosts.get(host);
        if (e == null) return false;
        if (e.routesVersion() == routes.version() && clock.millis() < e.untilMillis()) return true;
        hosts.remove(host, e);
        return false;
    }

    /** @param routesVersion {@link RouteTable#version()} read before the waker was asked */
    void add(String host, long routesVersion) {
        if (hosts.size() >= MAX_HOSTS) {
            long now = clock.millis();
            hosts.values().removeIf(e -> e.untilMillis() <= now);
            // many distinct names at once (random subdomains): this cache cannot help, keep it small
            if (hosts.size() >= MAX_HOSTS) hosts.clear();
        }
        hosts.put(host, new Entry(clock.millis() + REMEMBER_MS, routesVersion));
    }

    int size() {
        return hosts.size();
    }
}
