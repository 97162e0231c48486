package dev.slipway.edge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.slipway.router.RecentRequests;
import dev.slipway.router.RouteTable;
import dev.slipway.router.Waker;
import dev.slipway.tls.AppsTls;
import dev.slipway.tls.ChallengeAnswers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;

/**
 * The server's side of its edge process ({@link EdgeProcess}): finds the edge that serves its data dir (an earlier run
 * of the server left it running) or starts one, sends it the route table whenever it changes (and which app ports
 * serve or restart, sent as they change and checked four times a second) and, with HTTPS, the certificates it serves,
 * answers its wake requests and the ACME CA's challenges it is asked, and hands its request times to the retiring pool. An edge that dies is started again. {@link #leave} lets the edge go on serving without the server;
 * {@link #close} stops it.
 */
public final class EdgeLink implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EdgeLink.class);
    private static final String SOCKET = "edge.sock";
    private static final Duration START_WAIT = Duration.ofSeconds(30);
    private static final Duration STOP_WAIT = Duration.ofSeconds(15);
    /** A training run's edge writes its class-data cache as it exits: 5-10 s on two cores. */
    private static final Duration TRAINING_STOP_WAIT = Duration.ofSeconds(120);
    private static final Duration HELLO_WAIT = Duration.ofSeconds(5);
    private static final long SYNC_MILLIS = 250;
    /** How long a route change waits for the edge to serve it before the change's caller goes on without it. */
    private static final Duration APPLY_WAIT = Duration.ofSeconds(2);
    /** The same for the first table the server publishes: a new edge has not warmed up, and the start can wait. */
    private static final Duration FIRST_APPLY_WAIT = Duration.ofSeconds(15);

    /**
     * How to start an edge: where, on which port, for which apps domain.
     *
     * @param httpsPort  the apps HTTPS port (0: any free one); null: no HTTPS
     * @param trainCache a new edge makes its class-data cache (the launcher's training run) when there is none
     */
    public record Spec(Path dataDir, String host, int port, String appsDomain, Integer httpsPort, boolean trainCache) {
        public Spec(Path dataDir, String host, int port, String appsDomain, Integer httpsPort) {
            this(dataDir, host, port, appsDomain, httpsPort, false);
        }

        /** Whether an edge serving these ports is the one this spec asks for. */
        boolean servedBy(Hello h) {
            boolean https = httpsPort == null ? h.httpsPort() == 0 : httpsPort == 0 ? h.httpsPort() != 0 : h.httpsPort() == httpsPort;
            return (port == 0 || h.port() == port) && https;
        }
    }

    /**
     * @param httpsPort 0: the edge serves no HTTPS
     * @param applies   the edge answers a table that has a {@code seq} once it serves it
     * @param changes   the edge takes a table's changes after the first table
     */
    private record Hello(EdgeChannel channel, long pid, int port, int httpsPort, int version, boolean applies,
                         boolean changes) {}

    private final Spec spec;
    private final Object lock = new Object();
    /** One table on its way to the edge at a time: a later one never overtakes an earlier one. */
    private final Object pushing = new Object();
    /** Guards the three fields below: the tables sent for an answer, and the edge's answers. */
    private final Object applied = new Object();
    private long sentSeq;
    private long appliedSeq;
    /** The last wait for the edge ran out, and it has answered nothing since: the next change does not wait. */
    private boolean applyLate;
    // guarded by lock
    private EdgeChannel channel;
    private long pid;
    private int port;
    private boolean applies;
    private boolean changes;
    private final int httpsPort;
    private boolean dirty = true;
    private boolean closed;
    /** What the edge on {@link #channel} was last sent; null: nothing yet. */
    private Sent lastSent;
    private String lastTls;
    /** The app ports the routes sent on {@link #channel} reach, and which were sent as serving; guarded by pushing. */
    private final SentPorts sentPorts = new SentPorts();
    private final boolean adopted;
    private Thread sync;
    private Served served;
    /** The class path whose cache the edge started here makes as it exits; null: it makes none. */
    private EdgeJar training;

    /** The whole table last sent to an edge that is sent whole tables only (null for one sent changes after its first table). */
    private record Sent(EdgeMessages.Table table) {}

    /** @param tls null without HTTPS */
    private record Served(RouteTable routes, IntPredicate serves, IntPredicate restarting, Waker waker, RecentRequests recent,
                          AppsTls tls) {}

    private EdgeLink(Spec spec, Hello hello, boolean adopted) {
        this.spec = spec;
        this.channel = hello.channel();
        this.pid = hello.pid();
        this.port = hello.port();
        this.applies = hello.applies();
        this.changes = hello.changes();
        this.httpsPort = hello.httpsPort();
        this.adopted = adopted;
    }

    public static Path socketPath(Path dataDir) {
        return dataDir.toAbsolutePath().normalize().resolve(SOCKET);
    }

    /** The edge serving {@code spec}'s data dir on its port, adopted, or else a new one. */
    public static EdgeLink open(Spec spec) throws IOException {
        Hello running = hello(socketPath(spec.dataDir()));
        if (running != null) {
            if (running.version() != EdgeMessages.VERSION) {
                LOG.info("the edge process {} speaks version {}, not {}: it is replaced", running.pid(), running.version(),
                        EdgeMessages.VERSION);
                stop(running.channel(), running.pid());
            } else if (spec.servedBy(running)) {
                LOG.info("the edge process {} serving the apps on port {} is adopted", running.pid(), running.port());
                return new EdgeLink(spec, running, true);
            } else {
                LOG.info("the edge process {} serves ports {} and {}, not {} and {}: it is stopped", running.pid(), running.port(),
                        running.httpsPort() == 0 ? "no HTTPS" : running.httpsPort(), spec.port(),
                        spec.httpsPort() == null ? "no HTTPS" : spec.httpsPort());
                stop(running.channel(), running.pid());
            }
        }
        EdgeJar jar = EdgeJar.of(System.getProperty("java.class.path"), spec.dataDir());
        EdgeLink link = new EdgeLink(spec, start(spec, jar.classPath(), jar.cacheFlags(spec.trainCache())), false);
        if (jar.trains(spec.trainCache())) link.training = jar;
        return link;
    }

    public int port() {
        synchronized (lock) {
            return port;
        }
    }

    /** The apps HTTPS port the edge serves; null when it serves no HTTPS. */
    public Integer httpsPort() {
        return httpsPort == 0 ? null : httpsPort;
    }

    public long pid() {
        synchronized (lock) {
            return pid;
        }
    }

    /** Whether the edge was running before this server started (it kept serving while the server was away). */
    public boolean adopted() {
        return adopted;
    }

    /**
     * From now on the edge's wakes are answered with {@code waker}, its challenges from {@code tls} (null without HTTPS)
     * and its request times go to {@code recent}; it keeps serving the table and certificates it has until {@link #publish}.
     */
    public void serve(RouteTable routes, IntPredicate serves, IntPredicate restarting, Waker waker, RecentRequests recent,
                      AppsTls tls) {
        synchronized (lock) {
            served = new Served(routes, serves, restarting, waker, recent, tls);
            if (channel != null) listen(channel);
        }
    }

    /**
     * The server's routes are whole (its recovery restored them): the edge serves them when this returns (it is sent the
     * whole table on the caller's thread, and waited for as a change is, for up to {@link #FIRST_APPLY_WAIT}), and every
     * change from then on. Before this, an adopted edge goes on serving what the previous server sent it.
     */
    public void publish() {
        Served s;
        Thread loop;
        synchronized (lock) {
            s = served;
            if (s == null || sync != null || closed) return;
            loop = sync = Thread.ofPlatform().daemon().name("edge-sync").unstarted(this::syncLoop);
        }
        s.routes().onChange(() -> poke(APPLY_WAIT, false));
        poke(FIRST_APPLY_WAIT, true);
        loop.start();
    }

    /**
     * Which app ports serve or restart changed (an app starts stopping, crashed, answers again): as a route change,
     * once the routes are published. Before, an adopted edge keeps what the previous server sent it.
     */
    public void servingChanged() {
        synchronized (lock) {
            if (sync == null) return;
        }
        poke(APPLY_WAIT, true);
    }

    /**
     * A route changed: the edge is sent the table now, on the caller's thread, and the caller waits until the edge
     * serves it: a route removed before its app stops is gone from the edge before the app's port closes, and a
     * deployment that goes live after its route changed is what the edge's next request reaches. Without a connection
     * the sync loop sends it later. {@code everyPort}: which of all the routes' app ports serve is looked at again, not
     * only those of the routes changed.
     */
    private void poke(Duration wait, boolean everyPort) {
        EdgeChannel c;
        synchronized (lock) {
            dirty = true;
            c = channel;
        }
        if (c == null) return;
        synchronized (pushing) {
            try {
                long seq = push(c, everyPort);
                synchronized (lock) {
                    if (channel == c) dirty = false;
                }
                if (seq > 0) awaitApplied(seq, wait);
            } catch (IOException | RuntimeException e) {
                synchronized (lock) {
                    lock.notifyAll(); // the sync loop finds the connection gone
                }
            }
        }
    }

    private void syncLoop() {
        while (true) {
            EdgeChannel c;
            synchronized (lock) {
                if (closed) return;
                if (!dirty) {
                    try {
                        lock.wait(SYNC_MILLIS);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                if (closed) return;
                dirty = false;
                c = channel;
            }
            try {
                if (c == null) reconnect();
                else synchronized (pushing) {
                    push(c, true);
                }
            } catch (IOException | RuntimeException e) {
                LOG.warn("the edge process could not be told the routes: {}", e.toString());
                synchronized (lock) {
                    if (channel == c && c != null) {
                        c.close();
                        channel = null;
                    }
                }
                pause();
            }
        }
    }

    private void pause() {
        try {
            Thread.sleep(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Sends the table when it changed since it was last sent; the {@code seq} the edge answers it (or the table sent last)
     * with, 0 when it will not answer.
     */
    private long push(EdgeChannel c, boolean everyPort) throws IOException {
        Served s = served;
        Sent before;
        boolean answers;
        boolean takesChanges;
        synchronized (lock) {
            before = c == channel ? lastSent : null;
            answers = applies && c == channel;
            takesChanges = changes;
        }
        long seq;
        try {
            if (before != null && takesChanges && sentPorts.of(s.routes())) {
                EdgeMessages.Changes changes = sentPorts.changes(s.routes().takeChanges(), everyPort, s.serves(), s.restarting());
                seq = changes.none() ? lastSeq(answers) : send(c, EdgeMessages.changes(changes), answers, new Sent(null));
            } else {
                // a whole table holds every change made before it: the first on a connection is taken after they are forgotten
                s.routes().forgetChanges();
                EdgeMessages.Table table = sentPorts.whole(s.routes(), s.serves(), s.restarting());
                if (before != null && table.equals(before.table())) seq = lastSeq(answers);
                else seq = send(c, EdgeMessages.table(table), answers, new Sent(takesChanges ? null : table));
            }
        } catch (IOException | RuntimeException e) {
            sentPorts.clear(); // what was taken is lost: the next message is the whole table
            synchronized (lock) {
                if (c == channel) lastSent = null;
            }
            throw e;
        }
        if (s.tls() != null) pushTls(c, s.tls());
        return seq;
    }

    /** Sends {@code message}, numbered when the edge answers it; its number, or 0. */
    private long send(EdgeChannel c, ObjectNode message, boolean answers, Sent now) throws IOException {
        long seq = 0;
        if (answers) {
            synchronized (applied) {
                seq = ++sentSeq;
            }
            message.put("seq", seq);
        }
        c.send(message);
        synchronized (lock) {
            if (c == channel) lastSent = now;
        }
        return seq;
    }

    /** Nothing new to send: the sync loop may have sent this change a moment ago without waiting, and the caller waits for that one. */
    private long lastSeq(boolean answers) {
        if (!answers) return 0;
        synchronized (applied) {
            return sentSeq;
        }
    }

    private void awaitApplied(long seq, Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        synchronized (applied) {
            if (applyLate) return;
            while (appliedSeq < seq) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    applyLate = true;
                    LOG.warn("the edge process has not answered a route change within {} ms: changes go on without waiting for it",
                            wait.toMillis());
                    return;
                }
                try {
                    applied.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private void applied(long seq) {
        synchronized (applied) {
            if (seq > appliedSeq) appliedSeq = seq;
            if (applyLate) LOG.info("the edge process answers route changes again");
            applyLate = false;
            applied.notifyAll();
        }
    }

    /** The certificates, when they changed since they were last sent (checked with each table, at least four times a second). */
    private void pushTls(EdgeChannel c, AppsTls tls) throws IOException {
        String version = tls.version();
        synchronized (lock) {
            if (version.equals(lastTls) && c == channel) return;
        }
        c.send(EdgeMessages.tls(tls.state()));
        synchronized (lock) {
            lastTls = version;
        }
    }

    /** The edge went away (it died): the one now serving the data dir, or a new one. */
    private void reconnect() throws IOException {
        Hello h = hello(socketPath(spec.dataDir()));
        if (h != null && h.version() != EdgeMessages.VERSION) {
            stop(h.channel(), h.pid());
            h = null;
        }
        if (h == null) {
            LOG.warn("the edge process is gone: starting it again");
            EdgeJar jar = EdgeJar.of(System.getProperty("java.class.path"), spec.dataDir());
            h = start(new Spec(spec.dataDir(), spec.host(), port(), spec.appsDomain(), httpsPort()), jar.classPath(),
                    jar.cacheFlags(false));
        }
        synchronized (lock) {
            if (closed) {
                h.channel().close();
                return;
            }
            channel = h.channel();
            pid = h.pid();
            applies = h.applies();
            changes = h.changes();
            lastSent = null;
            lastTls = null;
            dirty = true;
            listen(channel);
        }
    }

    /** Reads the edge's messages: wakes are answered, request times handed on; the caller holds the lock. */
    private void listen(EdgeChannel c) {
        Served s = served;
        if (s == null) return;
        c.readAll("edge-link", m -> handle(c, s, m), () -> {
            synchronized (lock) {
                if (channel == c) {
                    channel = null;
                    dirty = true;
                    lock.notifyAll();
                }
            }
        });
    }

    private void handle(EdgeChannel c, Served s, JsonNode m) {
        switch (m.path("op").asText()) {
            case "wake" -> {
                long id = m.path("id").asLong();
                s.waker().wake(m.path("host").asText()).whenComplete((wake, e) -> {
                    try {
                        c.send(EdgeMessages.woke(id, wake != null ? wake : new Waker.Wake.Down()));
                    } catch (IOException gone) {
                        // the edge answers the request itself once the connection is gone
                    }
                });
            }
            case "applied" -> applied(m.path("seq").asLong());
            case "challenge" -> answer(c, s.tls() == null ? ChallengeAnswers.NONE : s.tls().answers(), m);
            case "stats" -> EdgeMessages.statsOf(m).forEach(s.recent().stats()::add);
            case "requests" -> EdgeMessages.requestsOf(m).forEach(s.recent().log()::record);
            case "recent" -> m.path("ports").properties().forEach(e -> {
                try {
                    s.recent().seen(Integer.parseInt(e.getKey()), e.getValue().asLong());
                } catch (NumberFormatException ignored) {
                    // not a port
                }
            });
            default -> { }
        }
    }

    /** A query of the store, on a thread of its own: the edge's other messages are not held up. */
    private static void answer(EdgeChannel c, ChallengeAnswers answers, JsonNode m) {
        long id = m.path("id").asLong();
        Thread.ofVirtual().name("edge-challenge").start(() -> {
            Optional<String> value;
            try {
                value = switch (m.path("kind").asText()) {
                    case "http-01" -> answers.http01(m.path("token").asText(), m.path("host").asText());
                    case "tls-alpn-01" -> answers.alpn(m.path("domain").asText());
                    default -> Optional.empty();
                };
            } catch (RuntimeException e) {
                value = Optional.empty(); // the store is away: the CA tries again
            }
            try {
                c.send(EdgeMessages.answer(id, value.orElse(null)));
            } catch (IOException gone) {
                // the edge answers nothing once the connection is gone
            }
        });
    }

    /** The edge keeps serving the last table it was sent; the next start of the server adopts it. */
    public void leave() {
        EdgeChannel c;
        synchronized (lock) {
            closed = true;
            c = channel;
            channel = null;
            lock.notifyAll();
        }
        if (c != null) c.close();
        join();
    }

    /** Stops the edge: it lets requests in flight finish and exits. */
    @Override
    public void close() {
        EdgeChannel c;
        long edge;
        synchronized (lock) {
            closed = true;
            c = channel;
            channel = null;
            edge = pid;
            lock.notifyAll();
        }
        join();
        if (c == null) return;
        boolean exited = stop(c, edge, training == null ? STOP_WAIT : TRAINING_STOP_WAIT);
        if (training != null) {
            try {
                training.keepTrained(exited);
            } catch (IOException e) {
                LOG.warn("the edge's class-data cache was not kept: {}", e.toString());
            }
        }
    }

    private void join() {
        Thread t = sync;
        if (t != null && t != Thread.currentThread()) {
            try {
                t.join(Duration.ofSeconds(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void stop(EdgeChannel c, long pid) {
        stop(c, pid, STOP_WAIT);
    }

    /** True when the edge exited within {@code wait}; it is killed otherwise. */
    private static boolean stop(EdgeChannel c, long pid, Duration wait) {
        try {
            c.send(EdgeMessages.op("stop"));
        } catch (IOException e) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroy);
        }
        c.close();
        Optional<ProcessHandle> edge = ProcessHandle.of(pid);
        if (edge.isEmpty()) return true;
        try {
            edge.get().onExit().get(wait.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (Exception e) {
            edge.get().destroyForcibly();
            return false;
        }
    }

    /** The edge's hello on its socket; null when no edge answers there. */
    private static Hello hello(Path socket) {
        if (!Files.exists(socket)) return null;
        EdgeChannel c;
        try {
            c = EdgeChannel.connect(socket);
        } catch (IOException e) {
            return null;
        }
        try {
            c.send(EdgeMessages.op("hello").put("version", EdgeMessages.VERSION));
            JsonNode h = CompletableFuture.supplyAsync(() -> {
                try {
                    return c.read();
                } catch (IOException e) {
                    return null;
                }
            }).get(HELLO_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            if (h == null || !"hello".equals(h.path("op").asText())) {
                c.close();
                return null;
            }
            return new Hello(c, h.path("pid").asLong(), h.path("port").asInt(), h.path("httpsPort").asInt(), h.path("version").asInt(),
                    h.path("applies").asBoolean(), h.path("changes").asBoolean());
        } catch (Exception e) {
            c.close();
            return null;
        }
    }

    /** Starts an edge process in a session of its own (a Ctrl-C of the server's terminal does not reach it). */
    private static Hello start(Spec spec, String classPath, List<String> cacheFlags) throws IOException {
        Path log = spec.dataDir().resolve("edge.log");
        List<String> cmd = new ArrayList<>();
        for (String setsid : List.of("/usr/bin/setsid", "/bin/setsid")) {
            if (Files.isExecutable(Path.of(setsid))) {
                cmd.add(setsid);
                break;
            }
        }
        cmd.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xms16m", "-XX:+UseSerialGC"));
        // glibc keeps what the start's native allocations freed: returning it every 2 s takes ~13 MB off an idle edge
        if (Runtime.version().feature() >= 22) cmd.add("-XX:TrimNativeHeapInterval=2000");
        cmd.addAll(cacheFlags);
        cmd.addAll(List.of(
                "-cp", classPath, "dev.slipway.Main", "edge",
                "--data-dir", spec.dataDir().toAbsolutePath().toString(), "--host", spec.host(),
                "--apps-port", Integer.toString(spec.port()), "--apps-domain", spec.appsDomain()));
        if (spec.httpsPort() != null) cmd.addAll(List.of("--https-port", Integer.toString(spec.httpsPort())));
        Process p = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).redirectErrorStream(true).start();
        long deadline = System.nanoTime() + START_WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            Hello h = hello(socketPath(spec.dataDir()));
            if (h != null && h.version() == EdgeMessages.VERSION) {
                LOG.info("the edge process {} serves the apps on port {}{}", h.pid(), h.port(), h.httpsPort() == 0 ? "" : " and HTTPS on " + h.httpsPort());
                return h;
            }
            if (!p.isAlive() && p.exitValue() != 0) {
                throw new IOException("the edge process exited with code " + p.exitValue() + ": " + tail(log));
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while the edge process started");
            }
        }
        p.toHandle().destroyForcibly();
        throw new IOException("the edge process did not answer within " + START_WAIT.toSeconds() + " s: " + tail(log));
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
        } catch (IOException e) {
            return "(no output)";
        }
    }
}
