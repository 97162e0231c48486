package dev.slipway.edge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.slipway.core.Json;
import dev.slipway.router.RequestLog;
import dev.slipway.router.RequestStats;
import dev.slipway.router.RouteChanges;
import dev.slipway.router.RouteTable;
import dev.slipway.router.SiteRules;
import dev.slipway.router.Target;
import dev.slipway.router.Waker;
import dev.slipway.tls.TlsState;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The messages between the server and its edge process, one JSON object per line over the edge's Unix socket:
 * <ul>
 *   <li>{@code hello} both ways first (the protocol's version; the edge adds its pid, its apps ports, {@code applies}:
 *   it answers a table that has a {@code seq}, and {@code changes}: it takes a table's changes);</li>
 *   <li>{@code table} from the server: every route, and which app ports serve and which restart now; with a
 *   {@code seq}, answered by {@code applied} with the same {@code seq} once the edge serves it (an edge from before
 *   {@code applies} ignores the field and answers nothing);</li>
 *   <li>{@code changes} from the server, to an edge that takes them, after a {@code table} on the same connection: the
 *   routes set and gone since the last table or changes, and the app ports that serve or restart now or no longer;
 *   answered as a {@code table} is;</li>
 *   <li>{@code wake} from the edge (a host without a route), answered by {@code woke} with the same id;</li>
 *   <li>{@code recent} from the edge: when each app port last had a request;</li>
 *   <li>{@code stats} and {@code requests} from the edge: the requests it relayed since its last report, counted and as
 *   log lines;</li>
 *   <li>{@code tls} from the server: the HTTPS listener's certificates with their keys, and its HSTS hosts (the socket
 *   is the server's user's alone, and the edge keeps them in memory only);</li>
 *   <li>{@code challenge} from the edge (an ACME CA's validation request), answered by {@code answer} with the same id;</li>
 *   <li>{@code stop} from the server: the edge closes its port and exits.</li>
 * </ul>
 */
final class EdgeMessages {
    static final int VERSION = 1;

    private EdgeMessages() {}

    /** What the edge serves from: the routes, and the app ports that serve ({@code serving}) or restart. */
    record Table(RouteTable.Snapshot routes, Set<Integer> serving, Set<Integer> restarting) {}

    static ObjectNode op(String op) {
        return Json.MAPPER.createObjectNode().put("op", op);
    }

    static ObjectNode table(Table t) {
        ObjectNode m = op("table");
        putRoutes(m, t.routes());
        ArrayNode serving = m.putArray("serving");
        t.serving().stream().sorted().forEach(serving::add);
        ArrayNode restarting = m.putArray("restarting");
        t.restarting().stream().sorted().forEach(restarting::add);
        return m;
    }

    static Table table(JsonNode m) {
        return new Table(routes(m), ports(m.get("serving")), ports(m.get("restarting")));
    }

    /** What differs between two tables: the routes, and the app ports that serve or restart now or no longer. */
    record Changes(RouteChanges routes, Ports serving, Ports restarting) {
        boolean none() {
            return routes.none() && serving.none() && restarting.none();
        }
    }

    /** Ports added to a set, and ports gone from it. */
    record Ports(Set<Integer> added, Set<Integer> gone) {
        boolean none() {
            return added.isEmpty() && gone.isEmpty();
        }

        /** Adds the added ports to {@code ports} and then takes the gone ones out: one port at a time, in place. */
        void applyIn(Set<Integer> ports) {
            ports.addAll(added);
            ports.removeAll(gone);
        }
    }

    static ObjectNode changes(Changes c) {
        ObjectNode m = op("changes");
        putRoutes(m, c.routes().set());
        ObjectNode gone = m.putObject("gone");
        c.routes().goneProduction().forEach(gone.putArray("production")::add);
        c.routes().goneDeployments().forEach(gone.putArray("deployments")::add);
        c.routes().goneDomains().forEach(gone.putArray("domains")::add);
        putPorts(m.putObject("serving"), c.serving());
        putPorts(m.putObject("restarting"), c.restarting());
        return m;
    }

    static Changes changes(JsonNode m) {
        JsonNode gone = m.path("gone");
        return new Changes(new RouteChanges(routes(m), names(gone.get("production")), names(gone.get("deployments")),
                names(gone.get("domains"))), portsOf(m.path("serving")), portsOf(m.path("restarting")));
    }

    private static void putRoutes(ObjectNode m, RouteTable.Snapshot routes) {
        ObjectNode production = m.putObject("production");
        routes.production().forEach((k, v) -> production.set(k, target(v)));
        ObjectNode deployments = m.putObject("deployments");
        routes.deployments().forEach((k, v) -> deployments.putObject(k).put("project", v.getKey()).set("target", target(v.getValue())));
        ObjectNode domains = m.putObject("domains");
        routes.domains().forEach(domains::put);
    }

    private static RouteTable.Snapshot routes(JsonNode m) {
        Map<String, Target> production = new HashMap<>();
        m.get("production").properties().forEach(e -> production.put(e.getKey(), target(e.getValue())));
        Map<String, Map.Entry<String, Target>> deployments = new HashMap<>();
        m.get("deployments").properties().forEach(e -> deployments.put(e.getKey(),
                Map.entry(e.getValue().get("project").asText(), target(e.getValue().get("target")))));
        Map<String, String> domains = new HashMap<>();
        m.get("domains").properties().forEach(e -> domains.put(e.getKey(), e.getValue().asText()));
        return new RouteTable.Snapshot(production, deployments, domains);
    }

    private static void putPorts(ObjectNode n, Ports p) {
        p.added().forEach(n.putArray("added")::add);
        p.gone().forEach(n.putArray("gone")::add);
    }

    private static Ports portsOf(JsonNode n) {
        return new Ports(ports(n.get("added")), ports(n.get("gone")));
    }

    private static Set<String> names(JsonNode a) {
        Set<String> out = new HashSet<>();
        if (a != null) a.forEach(n -> out.add(n.asText()));
        return out;
    }

    static ObjectNode woke(long id, Waker.Wake wake) {
        ObjectNode m = op("woke").put("id", id);
        switch (wake) {
            case Waker.Wake.Serve s -> m.put("kind", "serve").set("target", target(s.target()));
            case Waker.Wake.NoApp n -> m.put("kind", "noapp");
            case Waker.Wake.Down d -> m.put("kind", "down");
            case Waker.Wake.Failing f -> m.put("kind", "failing").put("retryMs", f.retryAfter().toMillis());
        }
        return m;
    }

    static Waker.Wake wake(JsonNode m) {
        return switch (m.path("kind").asText()) {
            case "serve" -> new Waker.Wake.Serve(target(m.get("target")));
            case "noapp" -> new Waker.Wake.NoApp();
            case "failing" -> new Waker.Wake.Failing(Duration.ofMillis(m.path("retryMs").asLong(1000)));
            default -> new Waker.Wake.Down();
        };
    }

    static ObjectNode tls(TlsState state) {
        ObjectNode m = op("tls");
        ArrayNode certificates = m.putArray("certificates");
        for (TlsState.Served c : state.certificates()) {
            ObjectNode n = certificates.addObject().put("alias", c.alias()).put("chain", c.chainPem()).put("key", c.keyPem());
            if (c.domain() != null) n.put("domain", c.domain());
        }
        ArrayNode hsts = m.putArray("hsts");
        state.hsts().stream().sorted().forEach(hsts::add);
        return m;
    }

    static TlsState tls(JsonNode m) {
        List<TlsState.Served> certificates = new ArrayList<>();
        for (JsonNode c : m.path("certificates")) {
            certificates.add(new TlsState.Served(c.hasNonNull("domain") ? c.get("domain").asText() : null, c.path("alias").asText(),
                    c.path("chain").asText(), c.path("key").asText()));
        }
        Set<String> hsts = new HashSet<>();
        m.path("hsts").forEach(h -> hsts.add(h.asText()));
        return new TlsState(certificates, hsts);
    }

    /** An ACME CA's request the edge asks the server to answer: HTTP-01 ({@code token}, {@code host}) or TLS-ALPN-01. */
    static ObjectNode http01(long id, String token, String host) {
        return op("challenge").put("id", id).put("kind", "http-01").put("token", token).put("host", host);
    }

    static ObjectNode alpn(long id, String domain) {
        return op("challenge").put("id", id).put("kind", "tls-alpn-01").put("domain", domain);
    }

    static ObjectNode answer(long id, String value) {
        ObjectNode m = op("answer").put("id", id);
        if (value != null) m.put("value", value);
        return m;
    }

    /** The requests the edge relayed to each port since its last report. */
    static ObjectNode stats(Map<Integer, RequestStats.Interval> byPort) {
        ObjectNode m = op("stats");
        ObjectNode ports = m.putObject("ports");
        byPort.forEach((port, i) -> {
            ObjectNode n = ports.putObject(Integer.toString(port)).put("requests", i.requests()).put("bytes", i.bytes())
                    .put("latency", i.encodedLatency());
            ArrayNode classes = n.putArray("classes");
            for (long c : i.classes()) classes.add(c);
        });
        return m;
    }

    /** Request log lines, each an array: at, port, method, path, status, micros, bytes, client. */
    static ObjectNode requests(List<RequestLog.Line> lines) {
        ObjectNode m = op("requests");
        ArrayNode out = m.putArray("lines");
        for (RequestLog.Line l : lines) {
            out.addArray().add(l.atMillis()).add(l.port()).add(l.method()).add(l.path()).add(l.status()).add(l.micros())
                    .add(l.bytes()).add(l.client());
        }
        return m;
    }

    static List<RequestLog.Line> requestsOf(JsonNode m) {
        List<RequestLog.Line> out = new ArrayList<>();
        for (JsonNode l : m.path("lines")) {
            if (l.size() != 8) continue;
            out.add(new RequestLog.Line(l.get(0).asLong(), l.get(1).asInt(), l.get(2).asText(), l.get(3).asText(), l.get(4).asInt(),
                    l.get(5).asLong(), l.get(6).asLong(), l.get(7).asText()));
        }
        return out;
    }

    static Map<Integer, RequestStats.Interval> statsOf(JsonNode m) {
        Map<Integer, RequestStats.Interval> out = new HashMap<>();
        m.path("ports").properties().forEach(e -> {
            try {
                JsonNode n = e.getValue();
                long[] classes = new long[6];
                for (int i = 0; i < 6 && i < n.path("classes").size(); i++) classes[i] = n.path("classes").get(i).asLong();
                out.put(Integer.parseInt(e.getKey()), new RequestStats.Interval(n.path("requests").asLong(), classes,
                        n.path("bytes").asLong(), RequestStats.Interval.decodeLatency(n.path("latency").asText())));
            } catch (NumberFormatException ignored) {
                // not a port
            }
        });
        return out;
    }

    private static ObjectNode target(Target t) {
        ObjectNode n = Json.MAPPER.createObjectNode();
        switch (t) {
            case Target.Upstream u -> n.put("host", u.host()).put("port", u.port());
            case Target.Pool pool -> {
                var members = n.putArray("members");
                pool.members().forEach(u -> members.addObject().put("host", u.host()).put("port", u.port()));
            }
            case Target.StaticSite s -> {
                n.put("root", s.root().toString()).put("spa", s.spaFallback());
                if (!s.rules().none()) n.set("rules", Json.MAPPER.valueToTree(s.rules()));
            }
        }
        return n;
    }

    private static Target target(JsonNode n) {
        if (n.has("root")) {
            return new Target.StaticSite(Path.of(n.get("root").asText()), n.path("spa").asBoolean(),
                    n.has("rules") ? Json.MAPPER.convertValue(n.get("rules"), SiteRules.class) : SiteRules.NONE);
        }
        if (n.has("members")) {
            List<Target.Upstream> members = new ArrayList<>();
            n.get("members").forEach(m -> members.add(new Target.Upstream(m.get("host").asText(), m.get("port").asInt())));
            return new Target.Pool(members);
        }
        return new Target.Upstream(n.get("host").asText(), n.get("port").asInt());
    }

    private static Set<Integer> ports(JsonNode a) {
        Set<Integer> out = new HashSet<>();
        if (a != null) a.forEach(p -> out.add(p.asInt()));
        return out;
    }
}
