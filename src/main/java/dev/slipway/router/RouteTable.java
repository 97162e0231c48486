package dev.slipway.router;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Host name to target (DESIGN §3 URLs): {@code <project>.<apps domain>} is the project's production,
 * {@code <project>-<short id>.<apps domain>} one deployment, a custom domain its project's production.
 * Only custom domains whose control is proven are set here (the callers pass {@code Project.servedDomain()}),
 * and never one under the apps domain: those addresses belong to the platform.
 * Each change is a single atomic map write: a request sees the old target or the new one, never none.
 * Switch production only after the new app is healthy.
 */
public final class RouteTable {
    private record DeploymentRoute(String project, Target target) {}

    private final String appsDomainSuffix;
    private final Map<String, Target> production = new ConcurrentHashMap<>();
    private final Map<String, DeploymentRoute> deployments = new ConcurrentHashMap<>();
    private final Map<String, String> domains = new ConcurrentHashMap<>();
    /** Counts the routes learned: what a cached "nothing at this host" was decided against. */
    private final AtomicLong learned = new AtomicLong();
    /** Told after every change (a separate edge process is sent the table). */
    private volatile Runnable onChange = () -> { };
    /** The keys changed since they were last taken ({@link #takeChanges}), kept once there is a listener to take them. */
    private final TouchedKeys touchedProduction = new TouchedKeys();
    private final TouchedKeys touchedDeployments = new TouchedKeys();
    private final TouchedKeys touchedDomains = new TouchedKeys();

    public RouteTable(String appsDomain) {
        this.appsDomainSuffix = "." + normalize(appsDomain);
    }

    public void setProduction(String projectName, Target target) {
        String project = normalize(projectName);
        production.put(project, target);
        touchedProduction.add(project);
        learned.incrementAndGet();
        changed();
    }

    public void removeProduction(String projectName) {
        String project = normalize(projectName);
        production.remove(project);
        touchedProduction.add(project);
        changed();
    }

    public Optional<Target> production(String projectName) {
        return Optional.ofNullable(production.get(normalize(projectName)));
    }

    public void setDeployment(String projectName, String shortId, Target target) {
        touchedDeployments.add(putDeployment(normalize(projectName), shortId, target));
        learned.incrementAndGet();
        changed();
    }

    /**
     * A deployment goes live: its own address and its project's production, in one change (a separate edge process is
     * sent the table once).
     */
    public void setLive(String projectName, String shortId, Target deployment, Target production) {
        String project = normalize(projectName);
        String key = putDeployment(project, shortId, deployment);
        this.production.put(project, production);
        touchedDeployments.add(key);
        touchedProduction.add(project);
        learned.incrementAndGet();
        changed();
    }

    /** @param project the project's name, normalized; returns the deployment's key */
    private String putDeployment(String project, String shortId, Target target) {
        String key = project + "-" + normalize(shortId);
        deployments.put(key, new DeploymentRoute(project, target));
        return key;
    }

    public void removeDeployment(String projectName, String shortId) {
        String key = normalize(projectName) + "-" + normalize(shortId);
        deployments.remove(key);
        touchedDeployments.add(key);
        changed();
    }

    /** Ignored for the apps domain and any name under it (a domain stored before that rule). */
    public void setDomain(String domain, String projectName) {
        String d = normalize(domain);
        if (d.isEmpty() || ("." + d).endsWith(appsDomainSuffix)) return;
        domains.put(d, normalize(projectName));
        touchedDomains.add(d);
        learned.incrementAndGet();
        changed();
    }

    /** Whether {@code domain} is a custom domain served here now. */
    public boolean hasDomain(String domain) {
        return domains.containsKey(normalize(domain));
    }

    public void removeDomain(String domain) {
        String d = normalize(domain);
        domains.remove(d);
        touchedDomains.add(d);
        changed();
    }

    /**
     * Makes {@code domain} (null: none) the project's only custom domain here: a domain it had before (changed,
     * removed, or no longer verified) stops reaching it.
     */
    public void syncDomain(String projectName, String domain) {
        String project = normalize(projectName);
        String keep = domain == null ? null : normalize(domain);
        touchedDomains.removeIf(domains, (d, p) -> p.equals(project) && !d.equals(keep));
        if (keep != null && !project.equals(domains.get(keep))) setDomain(keep, projectName);
        changed();
    }

    /** Replaces every custom domain with these (domain → project name), e.g. after changes may have gone untold. */
    public void replaceDomains(Map<String, String> served) {
        Map<String, String> wanted = new HashMap<>();
        served.forEach((d, p) -> wanted.put(normalize(d), normalize(p)));
        touchedDomains.removeIf(domains, (d, p) -> !p.equals(wanted.get(d)));
        wanted.forEach((d, p) -> { if (!p.equals(domains.get(d))) setDomain(d, p); });
        changed();
    }

    /**
     * Moves every route of the project to its new name: production, each deployment's {@code <project>-<suffix>}, its
     * custom domain. The new addresses are set before the old ones go, so a request by the new name never misses.
     */
    public void renameProject(String oldName, String newName) {
        String from = normalize(oldName);
        String to = normalize(newName);
        if (from.equals(to)) return;
        // the deployments' new addresses before production's: once the project answers at its new name, they do too
        Map<String, DeploymentRoute> moved = new HashMap<>();
        deployments.forEach((k, d) -> {
            if (d.project().equals(from) && k.startsWith(from + "-")) moved.put(to + k.substring(from.length()), new DeploymentRoute(to, d.target()));
        });
        deployments.putAll(moved);
        touchedDeployments.addAll(moved.keySet());
        Target p = production.get(from);
        if (p != null) production.put(to, p);
        touchedProduction.add(to);
        touchedDomains.replaceAll(domains, (d, project) -> project.equals(from) ? to : project);
        production.remove(from);
        touchedProduction.add(from);
        touchedDeployments.removeIf(deployments, (k, d) -> d.project().equals(from));
        learned.incrementAndGet();
        changed();
    }

    /** Forgets every route of the project: production, deployments, custom domains. */
    public void removeProject(String projectName) {
        String project = normalize(projectName);
        production.remove(project);
        touchedProduction.add(project);
        touchedDeployments.removeIf(deployments, (k, d) -> d.project().equals(project));
        touchedDomains.removeIf(domains, (d, p) -> p.equals(project));
        changed();
    }

    /**
     * Every route as it is now: production by project, deployments by {@code <project>-<short id>} with their project,
     * custom domains with their project.
     */
    public record Snapshot(Map<String, Target> production, Map<String, Map.Entry<String, Target>> deployments,
                           Map<String, String> domains) {
        public Snapshot {
            production = Map.copyOf(production);
            deployments = Map.copyOf(deployments);
            domains = Map.copyOf(domains);
        }
    }

    public Snapshot snapshot() {
        Map<String, Map.Entry<String, Target>> d = new HashMap<>();
        deployments.forEach((k, v) -> d.put(k, Map.entry(v.project(), v.target())));
        return new Snapshot(production, d, domains); // copied there
    }

    /**
     * Makes this table the snapshot's: what is in both is never missing in between (entries are set before stale ones
     * go), so a request during the change sees the old route or the new one.
     */
    public void replace(Snapshot s) {
        apply(RouteChanges.between(snapshot(), s));
    }

    /**
     * Sets the changes' routes, then removes the gone ones: a request during the change sees the old route or the new
     * one.
     */
    public void apply(RouteChanges c) {
        c.set().production().forEach(production::put);
        c.set().deployments().forEach((k, v) -> deployments.put(k, new DeploymentRoute(v.getKey(), v.getValue())));
        c.set().domains().forEach(domains::put);
        c.goneProduction().forEach(production::remove);
        c.goneDeployments().forEach(deployments::remove);
        c.goneDomains().forEach(domains::remove);
        touchedProduction.addAll(c.set().production().keySet());
        touchedProduction.addAll(c.goneProduction());
        touchedDeployments.addAll(c.set().deployments().keySet());
        touchedDeployments.addAll(c.goneDeployments());
        touchedDomains.addAll(c.set().domains().keySet());
        touchedDomains.addAll(c.goneDomains());
        learned.incrementAndGet();
        changed();
    }

    /**
     * {@code listener} is told after every change from now on (one listener), and the keys each change touches are kept
     * for {@link #takeChanges}.
     */
    public void onChange(Runnable listener) {
        touchedProduction.keep();
        touchedDeployments.keep();
        touchedDomains.keep();
        onChange = listener;
    }

    /**
     * The routes changed since the last take (or {@link #forgetChanges}), as they are now: all that an edge process serving
     * the table as it was then needs to serve it as it is. It costs the size of the changes, not of the table.
     */
    public RouteChanges takeChanges() {
        Map<String, Target> production = new HashMap<>();
        Map<String, Map.Entry<String, Target>> deployments = new HashMap<>();
        Map<String, String> domains = new HashMap<>();
        Set<String> goneProduction = new HashSet<>();
        Set<String> goneDeployments = new HashSet<>();
        Set<String> goneDomains = new HashSet<>();
        touchedProduction.take(this.production::get, production, goneProduction);
        touchedDeployments.take(k -> {
            DeploymentRoute d = this.deployments.get(k);
            return d == null ? null : Map.entry(d.project(), d.target());
        }, deployments, goneDeployments);
        touchedDomains.take(this.domains::get, domains, goneDomains);
        return new RouteChanges(new Snapshot(production, deployments, domains), goneProduction, goneDeployments, goneDomains);
    }

    /** Forgets the changes made so far: a {@link #snapshot} taken after this holds them. */
    public void forgetChanges() {
        touchedProduction.clear();
        touchedDeployments.clear();
        touchedDomains.clear();
    }

    /** Each route's target, as the table holds it now (without a snapshot's copy). */
    public void forEachTarget(Consumer<Target> action) {
        production.values().forEach(action);
        deployments.values().forEach(d -> action.accept(d.target()));
    }

    private void changed() {
        onChange.run();
    }

    /** Changes with every route set (never with a removal): an address unknown before may be known now. */
    long version() {
        return learned.get();
    }

    /**
     * The target for a {@code Host} header value (port and a trailing dot ignored, case-insensitive).
     * A label that is both a project name and {@code <project>-<short id>} of another resolves to the deployment:
     * the platform gave that address out, and a project name that reads like it (refused now, but
     * maybe stored before) must not take it over.
     */
    public Optional<Target> resolve(String hostHeader) {
        return Optional.ofNullable(target(hostOnly(hostHeader)));
    }

    /** {@link #resolve} of a host name already made {@link #hostOnly}, or null: the relay keeps it per connection. */
    Target target(String host) {
        if (host.isEmpty()) return null;
        String domainProject = domains.get(host);
        if (domainProject != null) return production.get(domainProject);
        if (!host.endsWith(appsDomainSuffix)) return null;
        String label = host.substring(0, host.length() - appsDomainSuffix.length());
        if (label.isEmpty() || label.indexOf('.') >= 0) return null;
        DeploymentRoute d = deployments.get(label);
        if (d != null) return d.target();
        return production.get(label);
    }

    /**
     * Points every route that reaches {@code from} (an app's instances as they were) at {@code to} (as they are now, after
     * a scale), each with one atomic write; a route switched elsewhere meanwhile is left alone.
     */
    public void replaceTarget(Target from, Target to) {
        if (from.equals(to)) return;
        touchedProduction.replaceAll(production, (k, t) -> t.equals(from) ? to : t);
        touchedDeployments.replaceAll(deployments, (k, d) -> d.target().equals(from) ? new DeploymentRoute(d.project(), to) : d);
        learned.incrementAndGet();
        changed();
    }

    /**
     * Forgets every route to the app process on {@code port} (it was stopped): its addresses are woken
     * again on their next request instead of reaching whatever listens on that port later.
     */
    public void forgetUpstream(int port) {
        // by port alone: a runtime's upstreams have distinct ports, on loopback or (Kubernetes Services) not
        touchedProduction.removeIf(production, (k, t) -> t instanceof Target.Upstream u && u.port() == port);
        touchedDeployments.removeIf(deployments, (k, d) -> d.target() instanceof Target.Upstream u && u.port() == port);
        // a replica stopped: the others serve on
        touchedProduction.replaceAll(production, (k, t) -> t instanceof Target.Pool p ? p.without(port) : t);
        touchedDeployments.replaceAll(deployments,
                (k, d) -> d.target() instanceof Target.Pool p ? new DeploymentRoute(d.project(), p.without(port)) : d);
        changed();
    }

    /**
     * Which address a Host header names, without looking at routes: a custom domain, or the label under
     * the apps domain ({@code <project>} or {@code <project>-<short id>}, told apart by the store).
     */
    public Optional<Address> address(String hostHeader) {
        String host = hostOnly(hostHeader);
        if (host.isEmpty()) return Optional.empty();
        if (!host.endsWith(appsDomainSuffix)) return Optional.of(new Address(null, host));
        String label = host.substring(0, host.length() - appsDomainSuffix.length());
        if (label.isEmpty() || label.indexOf('.') >= 0) return Optional.empty();
        return Optional.of(new Address(label, null));
    }

    /** Exactly one of {@code label} (under the apps domain) and {@code domain} (a custom domain) is set. */
    public record Address(String label, String domain) {}

    /** The host name of a Host header: lowercase, without port or trailing dot. */
    static String hostOnly(String hostHeader) {
        if (hostHeader == null) return "";
        String h = hostHeader.trim();
        if (h.startsWith("[")) { // IPv6 literal
            int end = h.indexOf(']');
            return end < 0 ? "" : h.substring(0, end + 1).toLowerCase(Locale.ROOT);
        }
        int colon = h.indexOf(':');
        if (colon >= 0) h = h.substring(0, colon);
        if (h.endsWith(".")) h = h.substring(0, h.length() - 1);
        return h.toLowerCase(Locale.ROOT);
    }

    private static String normalize(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT);
        return n.endsWith(".") ? n.substring(0, n.length() - 1) : n;
    }
}
