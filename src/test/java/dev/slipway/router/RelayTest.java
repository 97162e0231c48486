package dev.slipway.router;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.slipway.net.BoundPort;
import dev.slipway.testing.Await;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The relay in front of Jetty on the apps listener's public port, byte for byte: raw client connections on one
 * side, a real app (a Jetty server counting its connections and requests) and a scripted raw app on the other.
 */
class RelayTest {
    static final int MB = 1024 * 1024;
    static Server app;
    static final AtomicInteger appConnections = new AtomicInteger();
    static final AtomicInteger appRequests = new AtomicInteger();
    static final AtomicLong bigWritten = new AtomicLong();
    static ServerSocket scripted;
    static volatile String script = "";
    static final List<Socket> scriptedSockets = new CopyOnWriteArrayList<>();
    static ServerSocket idleCloser;
    static final AtomicInteger idleAnswered = new AtomicInteger();
    /** Requests the raw app has stalled on. */
    static final AtomicInteger stalledNow = new AtomicInteger();
    static final AtomicInteger idleClosed = new AtomicInteger();
    static final List<String> idleSeen = new CopyOnWriteArrayList<>();
    static RouteTable routes;
    static AppsListener listener;
    static AppsListener jettyOnly;
    static int closedPort;

    @BeforeAll
    static void start() throws Exception {
        app = new Server();
        ServerConnector connector = new ServerConnector(app);
        connector.setHost("127.0.0.1");
        connector.addEventListener(new Connection.Listener() {
            @Override
            public void onOpened(Connection connection) {
                appConnections.incrementAndGet();
            }
        });
        app.addConnector(connector);
        app.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                appRequests.incrementAndGet();
                serveApp(request, response);
                callback.succeeded();
                return true;
            }
        });
        app.start();
        scripted = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofPlatform().daemon().start(RelayTest::scriptedApp);
        idleCloser = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofPlatform().daemon().start(RelayTest::idleClosingApp);
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        routes = new RouteTable("localhost");
        routes.setProduction("shop", new Target.Upstream(connector.getLocalPort()));
        routes.setProduction("raw", new Target.Upstream(scripted.getLocalPort()));
        routes.setProduction("down", new Target.Upstream(closedPort));
        routes.setProduction("idle", new Target.Upstream(idleCloser.getLocalPort()));
        listener = AppsListener.start("127.0.0.1", 0, routes, port -> false);
        jettyOnly = AppsListener.start(BoundPort.bind("apps listener", "127.0.0.1", 0), routes, port -> false, Wakeups.NONE,
                new RecentRequests(Clock.systemUTC()), Edge.NONE, false);
    }

    @AfterAll
    static void stop() throws Exception {
        listener.close();
        jettyOnly.close();
        app.stop();
        scripted.close();
        idleCloser.close();
        for (Socket s : scriptedSockets) s.close();
    }

    @BeforeEach
    void settle() {
        bigWritten.set(0);
    }

    private static void serveApp(Request request, Response response) throws IOException {
        String path = request.getHttpURI().getPath();
        long bodyBytes = Content.Source.asInputStream(request).transferTo(OutputStream.nullOutputStream());
        switch (path) {
            case "/chunked" -> {
                try (OutputStream out = Content.Sink.asOutputStream(response)) {
                    for (String part : List.of("one,", "two,", "three")) {
                        out.write(part.getBytes(StandardCharsets.UTF_8));
                        out.flush(); // each part its own chunk: no Content-Length
                    }
                }
            }
            case "/big" -> {
                long total = Long.parseLong(request.getHttpURI().getQuery().substring("mb=".length())) * MB;
                response.getHeaders().put(HttpHeader.CONTENT_LENGTH, total);
                byte[] block = new byte[64 * 1024];
                Arrays.fill(block, (byte) 'x');
                try (OutputStream out = Content.Sink.asOutputStream(response)) {
                    for (long sent = 0; sent < total; sent += block.length) {
                        out.write(block);
                        bigWritten.addAndGet(block.length);
                    }
                }
            }
            case "/204" -> response.setStatus(204);
            case "/304" -> {
                response.setStatus(304);
                response.getHeaders().put(HttpHeader.ETAG, "\"v1\"");
            }
            default -> {
                StringBuilder sb = new StringBuilder();
                sb.append("path=").append(path).append('\n');
                sb.append("query=").append(request.getHttpURI().getQuery()).append('\n');
                sb.append("body=").append(bodyBytes).append('\n');
                request.getHeaders().forEach(f -> sb.append(f.getName().toLowerCase()).append(": ").append(f.getValue()).append('\n'));
                byte[] b = sb.toString().getBytes(StandardCharsets.UTF_8);
                response.getHeaders().put(HttpHeader.CONTENT_LENGTH, b.length);
                response.getHeaders().put("Keep-Alive", "timeout=5"); // hop-by-hop: the client must not get it
                try (OutputStream out = Content.Sink.asOutputStream(response)) {
                    out.write(b);
                }
            }
        }
    }

    /** Reads one request head per connection and answers {@link #script}, then closes. */
    private static void scriptedApp() {
        while (!scripted.isClosed()) {
            try {
                Socket s = scripted.accept();
                scriptedSockets.add(s);
                Thread.ofPlatform().daemon().start(() -> {
                    try (s) {
                        InputStream in = s.getInputStream();
                        int matched = 0;
                        while (matched < 4) {
                            int c = in.read();
                            if (c < 0) return;
                            matched = (c == "\r\n\r\n".charAt(matched)) ? matched + 1 : (c == '\r' ? 1 : 0);
                        }
                        String now = script;
                        if (now.equals("reset")) {
                            s.setSoLinger(true, 0); // the close below resets the connection
                            return;
                        }
                        if (now.equals("stall")) {
                            stalledNow.incrementAndGet();
                            Thread.sleep(60_000);
                            return;
                        }
                        s.getOutputStream().write(now.getBytes(StandardCharsets.ISO_8859_1));
                        s.getOutputStream().flush();
                        s.shutdownOutput();
                        in.transferTo(OutputStream.nullOutputStream());
                    } catch (IOException | InterruptedException ignored) {
                        // the test is over with this connection
                    }
                });
            } catch (IOException e) {
                return;
            }
        }
    }

    /**
     * A keep-alive app that closes a connection which has been idle for a moment when a request arrives on it,
     * without answering that request (what a server's idle timer does when it fires just as a request comes):
     * closed with a FIN or, every other time, a reset. Counts the requests it answered, and records each one.
     */
    private static void idleClosingApp() {
        while (!idleCloser.isClosed()) {
            Socket s;
            try {
                s = idleCloser.accept();
            } catch (IOException e) {
                return;
            }
            Thread.ofPlatform().daemon().start(() -> {
                try (s) {
                    InputStream in = s.getInputStream();
                    long answeredAt = 0;
                    while (true) {
                        StringBuilder head = new StringBuilder();
                        while (!head.toString().endsWith("\r\n\r\n")) {
                            int c = in.read();
                            if (c < 0) return;
                            head.append((char) c);
                        }
                        if (answeredAt != 0 && System.nanoTime() - answeredAt > 40_000_000L) {
                            if (idleClosed.incrementAndGet() % 2 == 0) s.setSoLinger(true, 0);
                            return; // unanswered, unread: as if it had never come
                        }
                        String h = head.toString();
                        int cl = h.toLowerCase().indexOf("content-length: ");
                        int length = cl < 0 ? 0 : Integer.parseInt(h.substring(cl + 16, h.indexOf('\r', cl)));
                        String body = new String(in.readNBytes(length), StandardCharsets.ISO_8859_1);
                        idleSeen.add(h.substring(0, h.indexOf('\r')) + " " + body);
                        String answer = "answered " + idleAnswered.incrementAndGet();
                        s.getOutputStream().write(("HTTP/1.1 200 OK\r\nContent-Length: " + answer.length() + "\r\n\r\n" + answer)
                                .getBytes(StandardCharsets.ISO_8859_1));
                        s.getOutputStream().flush();
                        answeredAt = System.nanoTime();
                    }
                } catch (IOException ignored) {
                    // the test is over with this connection
                }
            });
        }
    }

    /**
     * An app closing an idle keep-alive connection as the relay reuses it (Node's keepAliveTimeout, nginx's
     * keepalive_timeout) costs the client nothing: the request goes again on a fresh connection, once, and the
     * app answers each request exactly once. Not for a POST: the app might have acted on it.
     */
    @Test
    void aPooledConnectionTheAppClosedIsRetriedOnAFreshOne() throws Exception {
        idleSeen.clear();
        int answered = idleAnswered.get();
        int closed = idleClosed.get();
        int requests = 12;
        try (Wire w = new Wire(listener.port())) {
            for (int i = 0; i < requests; i++) {
                if (i > 0) Thread.sleep(60); // the idle moment after which the app closes the connection
                String request = i % 3 == 2
                        ? "PUT /p" + i + " HTTP/1.1\r\nHost: idle.localhost\r\nContent-Length: 5\r\n\r\nbody" + (i % 10)
                        : "GET /g" + i + " HTTP/1.1\r\nHost: idle.localhost\r\n\r\n";
                Wire.Response r = w.send(request).read();
                assertThat(r.status()).as("request %d", i).isEqualTo(200);
                assertThat(r.text()).startsWith("answered ");
            }
        }
        assertThat(idleAnswered.get() - answered).isEqualTo(requests);
        // most requests meet the connection the one before left in the pool, unless the machine held the relay for the
        // whole idle moment before it gave that connection back; two in a row are a FIN and a reset (see idleClosingApp)
        assertThat(idleClosed.get() - closed).as("stale pooled connections met").isGreaterThanOrEqualTo(2);
        assertThat(idleSeen).hasSize(requests).doesNotHaveDuplicates();
        assertThat(idleSeen.get(2)).isEqualTo("PUT /p2 HTTP/1.1 body2");
        // a POST that met a closing connection is the client's to send again: a 502, and the app never answered it
        // (a POST sent on a fresh connection, the pooled one not given back yet, is answered: the scenario is tried again)
        boolean refused = false;
        for (int attempt = 0; attempt < 5 && !refused; attempt++) {
            try (Wire w = new Wire(listener.port())) {
                assertThat(w.send("GET /first HTTP/1.1\r\nHost: idle.localhost\r\n\r\n").read().status()).isEqualTo(200);
                Thread.sleep(60);
                int before = idleAnswered.get();
                int status = w.send("POST /order HTTP/1.1\r\nHost: idle.localhost\r\nContent-Length: 2\r\n\r\nok").read().status();
                assertThat(status).isIn(200, 502);
                refused = status == 502;
                if (refused) assertThat(idleAnswered.get()).as("the app never answered the POST it closed on").isEqualTo(before);
            }
        }
        assertThat(refused).as("a POST met a closing pooled connection in one of five tries").isTrue();
    }

    private static String get(String path) {
        return "GET " + path + " HTTP/1.1\r\nHost: shop.localhost\r\n\r\n";
    }

    private static List<String> lines(Wire.Response r) {
        return r.text().lines().toList();
    }

    @Test
    void keepAliveConnectionsAreReusedOnBothSides() throws Exception {
        try (Wire w = new Wire(listener.port())) {
            w.send(get("/echo")).read(); // the app connection exists from here on
            int connections = appConnections.get();
            for (int i = 0; i < 20; i++) {
                Wire.Response r = w.send(get("/echo?i=" + i)).read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(lines(r)).contains("query=i=" + i);
                assertThat(r.header("keep-alive")).isNull();
                assertThat(r.header("connection")).isNull();
            }
            // one client connection, and its requests all went over the pooled app connection
            assertThat(appConnections.get()).isEqualTo(connections);
        }
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() throws Exception {
        try (Wire w = new Wire(listener.port())) {
            w.send(get("/a") + get("/b") + "POST /c HTTP/1.1\r\nHost: shop.localhost\r\nContent-Length: 5\r\n\r\nhello" + get("/d"));
            assertThat(lines(w.read())).contains("path=/a");
            assertThat(lines(w.read())).contains("path=/b");
            assertThat(lines(w.read())).contains("path=/c", "body=5");
            assertThat(lines(w.read())).contains("path=/d");
        }
    }

    @Test
    void chunkedBodiesPassBothWays() throws Exception {
        try (Wire w = new Wire(listener.port())) {
            w.send("POST /upload HTTP/1.1\r\nHost: shop.localhost\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n");
            assertThat(lines(w.read())).contains("path=/upload", "body=11");
            Wire.Response chunked = w.send(get("/chunked")).read();
            assertThat(chunked.header("transfer-encoding")).isEqualTo("chunked");
            assertThat(chunked.text()).isEqualTo("one,two,three");
            assertThat(lines(w.send(get("/after")).read())).contains("path=/after"); // the framing held
        }
    }

    @Test
    void headAndBodilessStatusesKeepTheConnectionInStep() throws Exception {
        try (Wire w = new Wire(listener.port())) {
            Wire.Response head = w.send("HEAD /echo HTTP/1.1\r\nHost: shop.localhost\r\n\r\n").read(true);
            assertThat(head.status()).isEqualTo(200);
            assertThat(Integer.parseInt(head.header("content-length"))).isPositive();
            assertThat(w.send(get("/204")).read().status()).isEqualTo(204);
            Wire.Response notModified = w.send(get("/304")).read();
            assertThat(notModified.status()).isEqualTo(304);
            assertThat(notModified.header("etag")).isEqualTo("\"v1\"");
            assertThat(lines(w.send(get("/last")).read())).contains("path=/last");
        }
    }

    @Test
    void largeBodiesStreamWithBackpressure() throws Exception {
        try (Wire w = new Wire(listener.port())) {
            // 50 MB up: the app counts what it got
            w.send("POST /upload HTTP/1.1\r\nHost: shop.localhost\r\nContent-Length: " + 50 * MB + "\r\n\r\n");
            byte[] block = new byte[64 * 1024];
            for (int i = 0; i < 50 * MB / block.length; i++) w.out().write(block);
            w.out().flush();
            assertThat(lines(w.read())).contains("body=" + 50 * MB);
            // 50 MB down to a client that stops reading: the app is held back by the socket buffers, not buffered
            w.send(get("/big?mb=50"));
            Thread.sleep(1_500);
            long held = bigWritten.get();
            assertThat(held).isLessThan(20L * MB);
            Wire.Response big = w.read();
            assertThat(big.body().length).isEqualTo(50 * MB);
            assertThat(bigWritten.get()).isEqualTo(50L * MB);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "GET / HTTP/1.1\r\nHost: shop.localhost\r\nNo colon here\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: shop.localhost\r\nX-A: 1\r\n folded\r\n\r\n",
            "GET / HTTP/1.1\r\nHost : shop.localhost\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: shop.localhost\r\nX-A: a\rb\r\n\r\n",
            "GET / HTTP/1.1\nHost: shop.localhost\n\n\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: shop.localhost\r\nX-A: a\u0000b\r\n\r\n",
            "GET  / HTTP/1.1\r\nHost: shop.localhost\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: shop.localhost\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello",
            "GET / HTTP/1.1\r\nHost: shop.localhost\r\nContent-Length: 5, 5\r\n\r\nhello",
            "GET / HTTP/1.1\r\nHost: shop.localhost\r\nContent-Length: -5\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: shop.localhost\r\nContent-Length: +5\r\n\r\nhello",
            "POST / HTTP/1.1\r\nHost: shop.localhost\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            "POST / HTTP/1.1\r\nHost: shop.localhost\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: shop.localhost\r\nX-Injected: a\r\n\rGET /smuggled HTTP/1.1\r\n\r\n",
    })
    void malformedHeadsAre400AndNothingReachesTheApp(String raw) throws Exception {
        int before = appRequests.get();
        try (Wire w = new Wire(listener.port())) {
            Wire.Response r = w.send(raw).read();
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.header("connection")).isEqualTo("close");
            assertThat(w.closedByPeer()).isTrue();
        }
        assertThat(appRequests.get()).isEqualTo(before);
    }

    @Test
    void bytesBeyondTheContentLengthAreTheNextHeadAndAMalformedOneIsRefused() throws Exception {
        int before = appRequests.get();
        try (Wire w = new Wire(listener.port())) {
            w.send("POST /first HTTP/1.1\r\nHost: shop.localhost\r\nContent-Length: 5\r\n\r\nhelloSMUGGLED / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n");
            assertThat(lines(w.read())).contains("path=/first", "body=5");
            assertThat(w.read().status()).isEqualTo(400);
            assertThat(w.closedByPeer()).isTrue();
        }
        assertThat(appRequests.get()).isEqualTo(before + 1);
    }

    @Test
    void anOversizedHeadIs431() throws Exception {
        try (Wire w = new Wire(listener.port())) {
            Wire.Response r = w.send("GET / HTTP/1.1\r\nHost: shop.localhost\r\nX-Big: " + "a".repeat(9_000) + "\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(431);
            assertThat(w.closedByPeer()).isTrue();
        }
    }

    /** Fields a client sends to pass itself off as another address, or as having come through proxies. */
    static final String FORGED = "X-Forwarded-For: 6.6.6.6\r\nX-Real-IP: 6.6.6.6\r\nForwarded: for=6.6.6.6;proto=https\r\n"
            + "Via: 1.1 evil-proxy\r\nX-Forwarded-Proto: https\r\nX-Forwarded-Host: bank.example\r\nX-Forwarded-Port: 443\r\n";

    /** The forwarded fields the app saw: only what the listener saw of a client at 127.0.0.2, nothing the client claimed. */
    static void onlyTheListenersView(List<String> seen, int port) {
        assertThat(seen).contains("x-forwarded-for: 127.0.0.2", "x-real-ip: 127.0.0.2", "x-forwarded-proto: http",
                "x-forwarded-host: shop.localhost", "x-forwarded-port: " + port, "host: shop.localhost",
                "forwarded: by=\"127.0.0.1\";for=\"127.0.0.2\";host=\"shop.localhost\";proto=http");
        assertThat(seen).filteredOn(l -> l.startsWith("via: ")).singleElement().asString().startsWith("via: 1.1 ").doesNotContain("evil");
        assertThat(seen).noneMatch(l -> l.contains("6.6.6.6") || l.contains("evil") || l.contains("bank.example")
                || l.contains("https") || l.equals("x-forwarded-port: 443"));
        assertThat(seen).filteredOn(l -> l.startsWith("x-forwarded-for") || l.startsWith("x-real-ip") || l.startsWith("forwarded")
                || l.startsWith("via")).hasSize(4);
    }

    @Test
    void forwardedHeadersAreTheListenersWhateverTheClientClaims() throws Exception {
        try (Wire w = new Wire(listener.port(), InetAddress.getByName("127.0.0.2"))) {
            onlyTheListenersView(lines(w.send("GET /echo HTTP/1.1\r\nHost: shop.localhost\r\n" + FORGED + "\r\n").read()), listener.port());
            // Jetty's path (a percent-encoded target is Jetty's to normalize) sets the same fields
            onlyTheListenersView(lines(w.send("GET /a%20b HTTP/1.1\r\nHost: shop.localhost\r\n" + FORGED + "\r\n").read()), listener.port());
        }
    }

    /**
     * A head of hundreds of fields written without the optional space after the colon (which the relay adds
     * back) is relayed whole, both ways, and the relay logs nothing of it.
     */
    @Test
    void aHeadOfManyFieldsIsRelayedWholeAndNothingIsLogged() throws Exception {
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        root.addAppender(log);
        try {
            StringBuilder head = new StringBuilder("GET /echo HTTP/1.1\r\nHost: shop.localhost\r\n");
            // over 4 KiB, so that the rewrite's buffer is made to the head's measure, not a doubling with room to spare
            for (int i = 0; i < 400; i++) head.append("f").append(i).append(":value-").append(i).append("\r\n");
            try (Wire w = new Wire(listener.port())) {
                for (int round = 0; round < 3; round++) { // the same connection: its head buffer is reused
                    Wire.Response r = w.send(head + "\r\n").read();
                    assertThat(r.status()).isEqualTo(200);
                    assertThat(lines(r)).filteredOn(l -> l.matches("f(\\d+): value-\\1")).hasSize(400);
                }
            }
            StringBuilder answer = new StringBuilder("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n");
            for (int i = 0; i < 400; i++) answer.append("r").append(i).append(":value-").append(i).append("\r\n");
            script = answer + "\r\nok";
            try (Wire w = new Wire(listener.port())) {
                Wire.Response r = w.send("GET / HTTP/1.1\r\nHost: raw.localhost\r\n\r\n").read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.headers().keySet()).filteredOn(k -> k.matches("r\\d+")).hasSize(400);
                assertThat(r.text()).isEqualTo("ok");
            }
        } finally {
            script = "";
            root.detachAppender(log);
        }
        assertThat(log.list).as("log lines while relaying").filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.WARN)).isEmpty();
    }

    /**
     * What the app sees is what Jetty's proxy sent it before the relay, field for field, but one: Jetty's HTTP
     * client added a second User-Agent of its own ("Jetty/12…") after the client's.
     */
    @Test
    void theAppSeesTheSameHeadAsThroughJettysProxy() throws Exception {
        String request = "GET /echo?q=1 HTTP/1.1\r\nHost: shop.localhost\r\nUser-Agent: t/1\r\nAccept: */*\r\n"
                + "X-Forwarded-For: 203.0.113.9\r\nVia: 1.0 corp\r\nConnection: keep-alive, X-Hop\r\nX-Hop: 1\r\n"
                + "TE: trailers\r\nCookie: a=1\r\n\r\n";
        List<String> relayed;
        List<String> proxied;
        try (Wire w = new Wire(listener.port())) {
            relayed = normalized(w.send(request).read(), listener.port());
        }
        try (Wire w = new Wire(jettyOnly.port())) {
            proxied = normalized(w.send(request).read(), jettyOnly.port());
        }
        proxied.removeIf(l -> l.startsWith("user-agent: Jetty/"));
        assertThat(relayed).containsExactlyInAnyOrderElementsOf(proxied);
        assertThat(relayed).noneMatch(l -> l.startsWith("x-hop") || l.startsWith("te:") || l.startsWith("connection"));
    }

    private static List<String> normalized(Wire.Response r, int port) {
        return lines(r).stream().map(l -> l.replace(Integer.toString(port), "PORT")).collect(Collectors.toCollection(ArrayList::new));
    }

    /** Requests the relay does not take go to Jetty behind PROXY protocol: the app sees the real client. */
    @Test
    void jettySeesTheRealClientAddress() throws Exception {
        try (Wire w = new Wire(listener.port(), InetAddress.getByName("127.0.0.2"))) {
            // a percent-encoded path is Jetty's to normalize: it goes through Jetty's proxy
            Wire.Response r = w.send(get("/a%20b")).read();
            assertThat(lines(r)).contains("path=/a%20b", "x-forwarded-for: 127.0.0.2", "x-forwarded-port: " + listener.port());
            // the rest of the connection stays on Jetty, keep-alive included
            assertThat(lines(w.send(get("/next")).read())).contains("path=/next", "x-forwarded-for: 127.0.0.2");
        }
    }

    @Test
    void whatJettyAnswersStillComesFromJetty() throws Exception {
        try (Wire w = new Wire(listener.port())) {
            Wire.Response unknown = w.send("GET / HTTP/1.1\r\nHost: nothing.localhost\r\n\r\n").read();
            assertThat(unknown.status()).isEqualTo(404);
            assertThat(unknown.text()).contains("No app at nothing.localhost");
        }
        try (Wire w = new Wire(listener.port())) {
            // an empty Host names no app: Jetty's answer, not a failure of the relay's
            assertThat(w.send("GET / HTTP/1.1\r\nHost:\r\n\r\n").read().status()).isBetween(400, 499);
        }
        try (Wire w = new Wire(listener.port())) {
            // nothing listens on the route's port: the connect fails before a byte is sent, Jetty answers
            Wire.Response down = w.send("GET / HTTP/1.1\r\nHost: down.localhost\r\n\r\n").read();
            assertThat(down.status()).isEqualTo(502);
            assertThat(down.text()).contains("is not responding");
        }
        try (Wire w = new Wire(listener.port())) {
            Wire.Response old = w.send("GET /echo HTTP/1.0\r\nHost: shop.localhost\r\n\r\n").read();
            assertThat(lines(old)).contains("path=/echo");
        }
    }

    @Test
    void aCloseDelimitedResponseEndsWithTheConnection() throws Exception {
        script = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end";
        try (Wire w = new Wire(listener.port())) {
            Wire.Response r = w.send("GET / HTTP/1.1\r\nHost: raw.localhost\r\n\r\n").read();
            assertThat(r.text()).isEqualTo("until the end");
            assertThat(r.header("connection")).isEqualTo("close");
        }
    }

    @Test
    void anAppFailingMidResponseCutsTheClient() throws Exception {
        script = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly ten..";
        try (Wire w = new Wire(listener.port())) {
            w.send("GET / HTTP/1.1\r\nHost: raw.localhost\r\n\r\n");
            assertThat(w.in().readNBytes(200)).asString(StandardCharsets.ISO_8859_1).startsWith("HTTP/1.1 200").endsWith("only ten..");
        }
        script = "reset";
        try (Wire w = new Wire(listener.port())) {
            assertThat(w.send("GET / HTTP/1.1\r\nHost: raw.localhost\r\n\r\n").read().status()).isEqualTo(502);
            assertThat(w.closedByPeer()).isTrue();
        }
        script = "NOT HTTP AT ALL\r\n\r\n";
        try (Wire w = new Wire(listener.port())) {
            assertThat(w.send("GET / HTTP/1.1\r\nHost: raw.localhost\r\n\r\n").read().status()).isEqualTo(502);
            assertThat(w.closedByPeer()).isTrue();
        }
    }

    @Test
    void aStalledAppDoesNotHoldBackOtherTenants() throws Exception {
        script = "stall";
        List<Wire> stalled = new ArrayList<>();
        try {
            int before = stalledNow.get();
            for (int i = 0; i < 16; i++) stalled.add(new Wire(listener.port()).send("GET / HTTP/1.1\r\nHost: raw.localhost\r\n\r\n"));
            Await.until(Duration.ofSeconds(30), "the 16 requests reach the stalling app", () -> stalledNow.get() - before >= 16);
            long start = System.nanoTime();
            for (int i = 0; i < 10; i++) {
                try (Wire w = new Wire(listener.port())) {
                    assertThat(w.send(get("/other")).read().status()).isEqualTo(200);
                }
            }
            assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(5_000);
        } finally {
            for (Wire w : stalled) w.close();
            script = "";
        }
    }
}
