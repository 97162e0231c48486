package dev.slipway.server;

import dev.slipway.accounts.Tier;
import dev.slipway.isolation.IsolationMode;
import dev.slipway.router.Target;
import dev.slipway.runtime.Instance;
import dev.slipway.runtime.TestApps;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Await;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.RecordingLog;
import dev.slipway.testing.TestServer;
import dev.slipway.testing.TestStore;
import dev.slipway.tls.TestCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Slow and greedy clients at the three public listeners of a real server (the apps listener's relay, its HTTPS
 * port, the API), with a 3 s head deadline, a body minimum of 2000 bytes a second and 6 connections per address,
 * set through the environment as an operator would. Each hostile client works from an address of its own on
 * loopback (127.0.0.2 and up) while another is served; it reports what the server said and when.
 */
@EndToEnd
class SlowClientsTest {
    static final Duration HEAD = Duration.ofSeconds(3);
    /** How long a hostile client waits for the server to cut it off before it reports that it was not. */
    static final Duration CUT_OFF = Duration.ofSeconds(20);
    static final int PER_CLIENT = 6;
    static final int TOTAL = 30;
    static final String APP_HOST = "shop.example";
    static Path dir;
    static TestCertificates certificates;
    static TestServer server;
    static Instance app;
    static String key;

    enum Listener { APPS_HTTP, APPS_HTTPS, API }

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("slow-clients-");
        certificates = TestCertificates.wildcardLocalhost(dir);
        Map<String, String> env = new HashMap<>(System.getenv());
        env.put("SLIPWAY_CLIENT_HEAD_TIMEOUT", Long.toString(HEAD.toSeconds()));
        env.put("SLIPWAY_CLIENT_BODY_MIN_RATE", "2000");
        env.put("SLIPWAY_MAX_CONNECTIONS_PER_CLIENT", Integer.toString(PER_CLIENT));
        env.put("SLIPWAY_MAX_CONNECTIONS", Integer.toString(TOTAL));
        server = TestServer.start(Dialect.H2, c -> c.environment(env).isolation(IsolationMode.NONE).appsHttpsPort(0)
                .appsTlsCertificate(certificates.cert(), certificates.key()));
        app = server.startApp(TestApps.spec("edge", Map.of()), new RecordingLog());
        server.slipway().engine().routes().setProduction("shop", new Target.Upstream(app.port()));
        // a domain the wildcard certificate does not cover: plain HTTP is served, not redirected, and by the relay
        server.slipway().engine().routes().setDomain(APP_HOST, "shop");
        key = server.tenant(Tier.FREE).key();
    }

    @AfterAll
    static void stop() {
        if (server != null) server.close();
        TestStore.deleteTree(dir);
    }

    static InetAddress from(int last) {
        try {
            return InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) last});
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A connection to the listener from {@code from}; over TLS the handshake is made. */
    static Socket open(Listener listener, InetAddress from) throws Exception {
        return switch (listener) {
            case APPS_HTTP -> plain(server.slipway().appsPort(), from);
            case API -> plain(server.slipway().apiPort(), from);
            case APPS_HTTPS -> {
                var s = certificates.connect(server.slipway().appsHttpsPort(), "site.localhost", from);
                s.startHandshake();
                yield s;
            }
        };
    }

    static Socket plain(int port, InetAddress from) throws IOException {
        Socket s = new Socket();
        if (from != null) s.bind(new InetSocketAddress(from, 0));
        s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        s.setSoTimeout(15_000);
        return s;
    }

    /** A GET's head, without its blank line: the app on the apps listener, the liveness check on the API. */
    static String get(Listener listener) {
        return listener == Listener.API ? "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n" : "GET / HTTP/1.1\r\nHost: " + APP_HOST + "\r\n";
    }

    /** A POST's head, without its blank line, whose target reads the body: the app's echo, the API's uploads. */
    static String post(Listener listener, int length) {
        String target = listener == Listener.API
                ? "POST /v1/uploads HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + key + "\r\nContent-Type: application/zip\r\n"
                : "POST /echo HTTP/1.1\r\nHost: " + APP_HOST + "\r\n";
        return target + "Content-Length: " + length + "\r\n";
    }

    /** One whole request on a new connection from {@code from}; the status line of the answer. */
    static String served(Listener listener, InetAddress from) throws Exception {
        try (Socket s = open(listener, from)) {
            s.getOutputStream().write((get(listener) + "Connection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
            return statusLine(s.getInputStream());
        }
    }

    static String statusLine(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (int c = in.read(); c >= 0 && c != '\r'; c = in.read()) sb.append((char) c);
        return sb.toString();
    }

    /** Sends its bytes one at a time, a tenth of a second apart, and records what the server says, until it closes. */
    static final class Dribbler implements AutoCloseable {
        final Socket socket;
        final long started = System.nanoTime();
        final byte[] bytes;
        volatile int sent;
        private final Thread writer;

        Dribbler(Socket socket, byte[] bytes) {
            this.socket = socket;
            this.bytes = bytes;
            this.writer = Thread.ofVirtual().start(() -> {
                try {
                    OutputStream out = socket.getOutputStream();
                    for (byte b : bytes) {
                        out.write(b);
                        out.flush();
                        sent++;
                        Thread.sleep(100); // the client's own pace: as slow as it can be without going quiet
                    }
                } catch (IOException | InterruptedException stopped) {
                    // the server closed the connection, or the test is over
                }
            });
        }

        /** What the server sent before it closed the connection; fails if it is still open after {@code deadline}. */
        String answer(Duration deadline) throws IOException {
            socket.setSoTimeout((int) deadline.toMillis());
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try {
                InputStream in = socket.getInputStream();
                for (int c; (c = in.read()) >= 0; ) out.write(c);
            } catch (SocketTimeoutException e) {
                throw new AssertionError("the server still holds the connection after " + seconds() + " s, "
                        + sent + " of " + bytes.length + " bytes sent");
            } catch (IOException e) {
                // reset after what it said, or (TLS) closed without a closing alert
            }
            return out.toString(StandardCharsets.ISO_8859_1);
        }

        double seconds() {
            return (System.nanoTime() - started) / 1e9;
        }

        @Override
        public void close() throws IOException {
            writer.interrupt();
            socket.close();
        }
    }

    @ParameterizedTest
    @EnumSource(Listener.class)
    void aHeadSentAByteAtATimeIsCutOffWithA408(Listener listener) throws Exception {
        byte[] head = (get(listener) + "X-Pad: " + "p".repeat(400) + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
        try (Dribbler slow = new Dribbler(open(listener, from(2)), head)) {
            assertThat(served(listener, from(3))).as("another client meanwhile").contains(" 200 ");
            String answer = slow.answer(CUT_OFF);
            System.out.printf("[measure] %s: a head dribbled a byte per 100 ms was cut off after %.1f s (%d bytes sent)%n",
                    listener, slow.seconds(), slow.sent);
            assertThat(answer).startsWith("HTTP/1.1 408 ");
            assertThat(slow.sent).isLessThan(head.length);
            assertThat(slow.seconds()).isLessThan(CUT_OFF.toSeconds());
        }
    }

    @ParameterizedTest
    @EnumSource(Listener.class)
    void aConnectionThatSaysNothingIsClosed(Listener listener) throws Exception {
        // over TLS the handshake is made: only the head never comes
        try (Dribbler quiet = new Dribbler(open(listener, from(4)), new byte[0])) {
            assertThat(quiet.answer(CUT_OFF)).isEmpty();
        }
    }

    @Test
    void aTlsHandshakeSentAByteAtATimeIsCutOff() throws Exception {
        // a ClientHello record that announces 512 bytes, then its bytes one at a time: the handshake never ends
        byte[] hello = new byte[5 + 512];
        hello[0] = 0x16;
        hello[1] = 0x03;
        hello[2] = 0x01;
        hello[3] = 0x02;
        hello[4] = 0x00;
        hello[5] = 0x01;
        try (Dribbler slow = new Dribbler(plain(server.slipway().appsHttpsPort(), from(5)), hello)) {
            assertThat(served(Listener.APPS_HTTPS, from(6))).contains(" 200 ");
            assertThat(slow.answer(CUT_OFF)).isEmpty();
            assertThat(slow.sent).isLessThan(hello.length);
        }
    }

    @ParameterizedTest
    @EnumSource(Listener.class)
    void aBodySentAByteAtATimeIsCutOffWithA408(Listener listener) throws Exception {
        int length = 5_000;
        Socket socket = open(listener, from(7));
        socket.getOutputStream().write((post(listener, length) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
        socket.getOutputStream().flush();
        try (Dribbler slow = new Dribbler(socket, new byte[length])) {
            assertThat(served(listener, from(8))).as("another client meanwhile").contains(" 200 ");
            String answer = slow.answer(CUT_OFF);
            System.out.printf("[measure] %s: a body dribbled a byte per 100 ms was cut off after %.1f s (%d bytes sent)%n",
                    listener, slow.seconds(), slow.sent);
            assertThat(answer).startsWith("HTTP/1.1 408 ");
            if (listener == Listener.API) assertThat(answer).contains("\"code\":\"request_timeout\"");
            assertThat(slow.sent).isLessThan(length);
        }
    }

    @ParameterizedTest
    @EnumSource(Listener.class)
    void oneAddressGetsItsShareOfConnectionsAndNoMore(Listener listener) throws Exception {
        InetAddress greedy = from(10 + listener.ordinal());
        List<Socket> held = new ArrayList<>();
        try {
            for (int i = 0; i < PER_CLIENT; i++) {
                Socket s = open(listener, greedy);
                held.add(s);
                // a whole request, the connection kept alive after it: idle, not slow
                s.getOutputStream().write((get(listener) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                s.getOutputStream().flush();
                assertThat(statusLine(s.getInputStream())).contains(" 200 ");
            }
            assertThat(refused(listener, greedy)).as("one connection more from the same address").isTrue();
            assertThat(served(listener, from(20))).as("another address").contains(" 200 ");
            held.removeFirst().close();
            Await.until(Duration.ofSeconds(30), "a connection again once one of its own closed", () -> {
                try {
                    return served(listener, greedy).contains(" 200 ");
                } catch (Exception e) {
                    return false;
                }
            });
        } finally {
            for (Socket s : held) s.close();
        }
    }

    /**
     * Whether a new connection from {@code from} is refused: a 503, or closed (over TLS, during the handshake);
     * false when its request is served, or waits.
     */
    static boolean refused(Listener listener, InetAddress from) throws Exception {
        Socket s;
        try {
            s = open(listener, from);
        } catch (IOException e) {
            return true; // closed during the TLS handshake
        }
        try (s) {
            try {
                s.getOutputStream().write((get(listener) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                s.getOutputStream().flush();
            } catch (IOException e) {
                // refused before the request went out: the refusal is in the buffer still
            }
            String status;
            try {
                status = statusLine(s.getInputStream());
            } catch (SocketTimeoutException e) {
                return false;
            } catch (IOException e) {
                return true; // reset
            }
            return status.isEmpty() || status.startsWith("HTTP/1.1 503 ");
        }
    }

    @Test
    void theAppsListenerTakesNoMoreThanItsTotal() throws Exception {
        List<Socket> held = new ArrayList<>();
        int refused = 0;
        try {
            // PER_CLIENT - 1 from each of many addresses: no address is over its share, the listener is
            for (int address = 30; held.size() + refused < TOTAL + PER_CLIENT && address < 60; address++) {
                for (int i = 0; i < PER_CLIENT - 1; i++) {
                    Socket s = plain(server.slipway().appsPort(), from(address));
                    String answer = probe(s);
                    if (answer.startsWith("HTTP/1.1 503 ")) {
                        refused++;
                        s.close();
                    } else {
                        held.add(s);
                    }
                }
            }
            assertThat(refused).as("connections refused past the total").isPositive();
            assertThat(held.size()).isLessThanOrEqualTo(TOTAL);
        } finally {
            for (Socket s : held) s.close();
        }
        Await.until(Duration.ofSeconds(30), "connections again once the others closed",
                () -> {
                    try {
                        return served(Listener.APPS_HTTP, from(61)).contains(" 200 ");
                    } catch (Exception e) {
                        return false;
                    }
                });
    }

    /** A keep-alive request on the connection: its status line, or the refusal the server sent as it accepted it. */
    static String probe(Socket s) throws IOException {
        try {
            s.getOutputStream().write((get(Listener.APPS_HTTP) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
        } catch (IOException e) {
            // refused before the request went out: the answer is in the buffer still
        }
        try {
            return statusLine(s.getInputStream());
        } catch (SocketException e) {
            return "HTTP/1.1 503 (reset)";
        }
    }
}
