package dev.slipway.edge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.slipway.net.BoundPort;
import dev.slipway.net.ClientGate;
import dev.slipway.router.AppsListener;
import dev.slipway.router.Edge;
import dev.slipway.router.RecentRequests;
import dev.slipway.router.RequestLog;
import dev.slipway.router.RouteTable;
import dev.slipway.router.Target;
import dev.slipway.router.Waker;
import dev.slipway.router.Wakeups;
import dev.slipway.tls.ChallengeAnswers;
import dev.slipway.tls.TlsEdge;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongFunction;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The edge: the apps listener in a process of its own, which outlives the server. It serves its last route table
 * (and, with HTTPS, the last certificates it was sent) while no server is connected (an upgrade, a restart, a crash),
 * asks the connected server to wake an address without a route (none connected: the 503 page with Retry-After) and
 * to answer an ACME CA's validation requests, and tells it when each app last had a request. It exits when the server
 * tells it to stop, or once its data dir is gone.
 */
public final class EdgeProcess {
    private static final Logger LOG = LoggerFactory.getLogger(EdgeProcess.class);
    /** The 503 a wake gets while no server is connected: retried soon, the server is starting. */
    private static final Duration NO_SERVER_RETRY = Duration.ofSeconds(2);
    /** Request log lines per message: about 100 bytes each, well under the channel's line limit. */
    private static final int REQUESTS_PER_MESSAGE = 5_000;
    private static final Duration WATCH = Duration.ofSeconds(2);
    /** How long a CA's validation request waits for the server's answer (a query of its store). */
    private static final Duration ANSWER_WAIT = Duration.ofSeconds(5);

    /**
     * @param gate    the apps listener's client limits and trusted proxies
     * @param maxWait   how long a request waits for a wake
     * @param httpsPort the apps HTTPS listener's port (0: any free one); null: no HTTPS
     */
    public record Options(Path dataDir, String host, int port, String appsDomain, ClientGate gate, Duration maxWait,
                          Integer httpsPort) {}

    private final Options options;
    private final Clock clock = Clock.systemUTC();
    private final RouteTable routes;
    private final RecentRequests recent = new RecentRequests(clock);
    /** Changed in place, one port at a time: a change costs its own ports, not the install's. */
    private final Set<Integer> serving = ConcurrentHashMap.newKeySet();
    private final Set<Integer> restarting = ConcurrentHashMap.newKeySet();
    private volatile EdgeChannel server;
    private final Map<Long, CompletableFuture<Waker.Wake>> wakes = new ConcurrentHashMap<>();
    private final Map<Long, CompletableFuture<Optional<String>>> asked = new ConcurrentHashMap<>();
    private final AtomicLong nextWake = new AtomicLong();
    private final CountDownLatch stop = new CountDownLatch(1);
    private volatile int appsPort;
    private volatile TlsEdge tls;

    private EdgeProcess(Options options) {
        this.options = options;
        this.routes = new RouteTable(options.appsDomain());
    }

    /** Serves until told to stop; the exit code. */
    public static int run(Options options, PrintStream out) throws IOException, InterruptedException {
        return new EdgeProcess(options).serve(out);
    }

    private int serve(PrintStream out) throws IOException, InterruptedException {
        Path socket = EdgeLink.socketPath(options.dataDir());
        try (EdgeChannel other = EdgeChannel.connect(socket)) {
            out.println("slipway edge: another edge serves this data dir (" + socket + ")");
            return 1;
        } catch (IOException none) {
            Files.deleteIfExists(socket); // a dead edge's
        }
        BoundPort port = BoundPort.bind("apps listener", options.host(), options.port());
        if (options.httpsPort() != null) {
            tls = TlsEdge.remote(BoundPort.bind("apps HTTPS listener", options.host(), options.httpsPort()), options.appsDomain(),
                    answers());
        }
        AppsListener apps = AppsListener.start(port, routes, p -> restarting.contains(p),
                new Wakeups(this::wake, p -> serving.contains(p), options.maxWait(), clock), recent, tls == null ? Edge.NONE : tls,
                options.gate());
        appsPort = apps.port();
        ServerSocketChannel control = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        control.bind(UnixDomainSocketAddress.of(socket));
        Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-------"));
        Thread.ofPlatform().daemon().name("edge-control").start(() -> accept(control));
        Thread.ofPlatform().daemon().name("edge-recent").start(this::sendRecent);
        Thread.ofPlatform().daemon().name("edge-watch").start(() -> watch(socket));
        out.println("Slipway edge serving apps on http://" + options.host() + ":" + apps.port()
                + (tls == null ? "" : " and https://" + options.host() + ":" + tls.port()) + " (pid " + ProcessHandle.current().pid() + ")");
        out.flush();
        stop.await();
        try {
            control.close();
            Files.deleteIfExists(socket);
        } finally {
            apps.close(); // lets requests in flight finish
        }
        out.println("Slipway edge stopped");
        return 0;
    }

    /**
     * One server at a time: a connection that says hello takes over (a server that started while the old one's was
     * open); one that does not (a probe: is an edge there?) changes nothing.
     */
    private void accept(ServerSocketChannel control) {
        while (stop.getCount() > 0) {
            SocketChannel ch;
            try {
                ch = control.accept();
            } catch (IOException e) {
                return;
            }
            EdgeChannel c = new EdgeChannel(ch);
            try {
                c.send(EdgeMessages.op("hello").put("version", EdgeMessages.VERSION).put("pid", ProcessHandle.current().pid())
                        .put("port", appsPort).put("httpsPort", tls == null ? 0 : tls.port()).put("applies", true)
                        .put("changes", true));
            } catch (IOException e) {
                c.close();
                continue;
            }
            c.readAll("edge-server", m -> handle(c, m), () -> {
                if (server == c) {
                    server = null;
                    LOG.info("the server is away: serving the last route table");
                    failWakes();
                }
            });
        }
    }

    /** The connection of the server that said hello last; the one before it is closed. */
    private void takeOver(EdgeChannel c) {
        EdgeChannel before = server;
        server = c;
        if (before != null && before != c) before.close();
    }

    /** Makes {@code ports} {@code now}: the ports in both are never missing in between. */
    private static void replace(Set<Integer> ports, Set<Integer> now) {
        ports.addAll(now);
        ports.retainAll(now);
    }

    private void handle(EdgeChannel c, JsonNode m) {
        String op = m.path("op").asText();
        if (op.equals("hello")) {
            takeOver(c);
            return;
        }
        if (server != c) return; // a connection that has not said hello, or one taken over since
        switch (op) {
            case "table" -> {
                EdgeMessages.Table t = EdgeMessages.table(m);
                replace(serving, t.serving());
                replace(restarting, t.restarting());
                routes.replace(t.routes());
                if (m.has("seq")) applied(c, m.get("seq").asLong());
            }
            case "changes" -> {
                EdgeMessages.Changes ch = EdgeMessages.changes(m);
                ch.serving().applyIn(serving);
                ch.restarting().applyIn(restarting);
                routes.apply(ch.routes());
                if (m.has("seq")) applied(c, m.get("seq").asLong());
            }
            case "woke" -> {
                CompletableFuture<Waker.Wake> f = wakes.remove(m.path("id").asLong());
                if (f != null) f.complete(EdgeMessages.wake(m));
            }
            case "tls" -> {
                TlsEdge t = tls;
                if (t != null) t.apply(EdgeMessages.tls(m));
            }
            case "answer" -> {
                CompletableFuture<Optional<String>> f = asked.remove(m.path("id").asLong());
                if (f != null) f.complete(m.hasNonNull("value") ? Optional.of(m.get("value").asText()) : Optional.empty());
            }
            case "stop" -> stop.countDown();
            default -> { } // a newer server's message this edge does not know
        }
    }

    /** Tells the server that its table {@code seq} is served: the next request sees it. */
    private static void applied(EdgeChannel c, long seq) {
        try {
            c.send(EdgeMessages.op("applied").put("seq", seq));
        } catch (IOException gone) {
            // the server went away; the next one sends its own table
        }
    }

    private CompletableFuture<Waker.Wake> wake(String hostHeader) {
        EdgeChannel c = server;
        if (c == null) return CompletableFuture.completedFuture(new Waker.Wake.Failing(NO_SERVER_RETRY));
        long id = nextWake.incrementAndGet();
        CompletableFuture<Waker.Wake> f = new CompletableFuture<>();
        wakes.put(id, f);
        try {
            c.send(EdgeMessages.op("wake").put("id", id).put("host", hostHeader));
        } catch (IOException e) {
            wakes.remove(id);
            return CompletableFuture.completedFuture(new Waker.Wake.Failing(NO_SERVER_RETRY));
        }
        return f;
    }

    private void failWakes() {
        for (Long id : Set.copyOf(wakes.keySet())) {
            CompletableFuture<Waker.Wake> f = wakes.remove(id);
            if (f != null) f.complete(new Waker.Wake.Failing(NO_SERVER_RETRY));
        }
        for (Long id : Set.copyOf(asked.keySet())) {
            CompletableFuture<Optional<String>> f = asked.remove(id);
            if (f != null) f.complete(Optional.empty());
        }
    }

    /** The CA's challenges are the store's, which the server reads: with no server connected, none is answered. */
    private ChallengeAnswers answers() {
        return new ChallengeAnswers() {
            @Override
            public Optional<String> http01(String token, String host) {
                return ask(id -> EdgeMessages.http01(id, token, host));
            }

            @Override
            public Optional<String> alpn(String domain) {
                return ask(id -> EdgeMessages.alpn(id, domain));
            }
        };
    }

    private Optional<String> ask(LongFunction<ObjectNode> question) {
        EdgeChannel c = server;
        if (c == null) return Optional.empty();
        long id = nextWake.incrementAndGet();
        CompletableFuture<Optional<String>> f = new CompletableFuture<>();
        asked.put(id, f);
        try {
            c.send(question.apply(id));
            return f.get(ANSWER_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (IOException | ExecutionException | TimeoutException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } finally {
            asked.remove(id);
        }
    }

    /** Each second, the app ports that had a request since the last report, with the time of their last one. */
    private void sendRecent() {
        Map<Integer, Long> sent = new HashMap<>();
        while (stop.getCount() > 0) {
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                return;
            }
            EdgeChannel c = server;
            if (c == null) continue;
            sendStats(c);
            ObjectNode ports = EdgeMessages.op("recent");
            ObjectNode p = ports.putObject("ports");
            routes.forEachTarget(t -> add(t, p, sent));
            if (p.isEmpty()) continue;
            try {
                c.send(ports);
            } catch (IOException e) {
                // the server went away: told again to the next one
            }
        }
    }

    /**
     * The requests relayed since the last report, by port and as log lines; kept for the next one when the server cannot
     * take them (the log's lines while it has room).
     */
    private void sendStats(EdgeChannel c) {
        Map<Integer, dev.slipway.router.RequestStats.Interval> drained = recent.stats().drain();
        if (!drained.isEmpty()) {
            try {
                c.send(EdgeMessages.stats(drained));
            } catch (IOException e) {
                drained.forEach(recent.stats()::add);
            }
        }
        List<RequestLog.Line> lines = recent.log().drain();
        for (int from = 0; from < lines.size(); from += REQUESTS_PER_MESSAGE) {
            List<RequestLog.Line> part = lines.subList(from, Math.min(lines.size(), from + REQUESTS_PER_MESSAGE));
            try {
                c.send(EdgeMessages.requests(part));
            } catch (IOException e) {
                lines.subList(from, lines.size()).forEach(recent.log()::record);
                return;
            }
        }
    }

    private void add(Target t, ObjectNode p, Map<Integer, Long> sent) {
        for (Target.Upstream u : t.upstreams()) {
            long last = recent.lastMillis(u.port());
            if (last == 0 || Long.valueOf(last).equals(sent.get(u.port()))) continue;
            sent.put(u.port(), last);
            p.put(Integer.toString(u.port()), last);
        }
    }

    /** An edge whose data dir or socket was removed has nothing left to serve for. */
    private void watch(Path socket) {
        while (stop.getCount() > 0) {
            try {
                Thread.sleep(WATCH);
            } catch (InterruptedException e) {
                return;
            }
            if (!Files.isDirectory(options.dataDir()) || !Files.exists(socket)) {
                LOG.info("the data dir {} or the edge's socket is gone: stopping", options.dataDir());
                stop.countDown();
            }
        }
    }
}
