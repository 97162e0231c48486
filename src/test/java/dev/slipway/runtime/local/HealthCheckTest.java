package dev.slipway.runtime.local;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The health check against real listeners on loopback, with a real process standing for the app. */
class HealthCheckTest {
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final HealthCheck health = new HealthCheck();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : toClose.reversed()) c.close();
    }

    private Process running() throws IOException {
        Process p = new ProcessBuilder("sleep", "60").start();
        toClose.add(p::destroyForcibly);
        return p;
    }

    /** An HTTP server on a free port answering {@code statuses} in turn, then the last one for good. */
    private HttpServer http(int port, int... statuses) throws IOException {
        AtomicInteger served = new AtomicInteger();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
        server.createContext("/", exchange -> {
            int status = statuses[Math.min(served.getAndIncrement(), statuses.length - 1)];
            exchange.sendResponseHeaders(status, -1);
            exchange.close();
        });
        server.start();
        toClose.add(() -> server.stop(0));
        return server;
    }

    @Test
    void theFirstProbesComeQuicklyThenBackOffToTheConfiguredInterval() {
        Duration poll = Duration.ofMillis(50);
        assertThat(HealthCheck.pause(Duration.ZERO, poll)).isEqualTo(Duration.ofMillis(2));
        assertThat(HealthCheck.pause(Duration.ofMillis(40), poll)).isEqualTo(Duration.ofMillis(2));
        assertThat(HealthCheck.pause(Duration.ofMillis(120), poll)).isEqualTo(Duration.ofMillis(3));
        assertThat(HealthCheck.pause(Duration.ofMillis(1000), poll)).isEqualTo(Duration.ofMillis(25));
        assertThat(HealthCheck.pause(Duration.ofSeconds(3), poll)).isEqualTo(poll);
        // an interval configured below the first pause is kept
        assertThat(HealthCheck.pause(Duration.ZERO, Duration.ofMillis(1))).isEqualTo(Duration.ofMillis(1));
    }

    @Test
    void anAppThatStartsListeningLateIsFoundSoonAfterNotAtTheNextConfiguredInterval() throws Exception {
        // the app is still starting for its first three probes (it closes them unanswered), then answers
        ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        toClose.add(listener);
        AtomicInteger probes = new AtomicInteger();
        AtomicLong readyAt = new AtomicLong();
        Thread.ofVirtual().start(() -> {
            while (!listener.isClosed()) {
                try (Socket s = listener.accept()) {
                    if (probes.incrementAndGet() <= 3) {
                        if (probes.get() == 3) readyAt.set(System.nanoTime());
                        continue;
                    }
                    var in = s.getInputStream();
                    int last4 = 0;
                    while (last4 != 0x0d0a0d0a) {
                        int c = in.read();
                        if (c < 0) break;
                        last4 = (last4 << 8) | c;
                    }
                    s.getOutputStream().write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                            .getBytes(StandardCharsets.US_ASCII));
                } catch (IOException e) {
                    return;
                }
            }
        });
        // a configured interval of 2 s: probing only at that interval would find it 2 s after it is ready
        HealthCheck.Outcome outcome = health.await(listener.getLocalPort(), running(), Duration.ofSeconds(10), Duration.ofSeconds(2));
        long found = System.nanoTime();

        assertThat(outcome).isInstanceOf(HealthCheck.Outcome.Healthy.class);
        assertThat(((HealthCheck.Outcome.Healthy) outcome).status()).isEqualTo(200);
        assertThat(probes.get()).as("probes until healthy").isEqualTo(4);
        assertThat(Duration.ofNanos(found - readyAt.get())).isLessThan(Duration.ofMillis(1000));
    }

    @Test
    void aServerErrorIsNotHealthyButALaterAnswerBelow500Is() throws Exception {
        int port = FreePorts.pick();
        http(port, 503, 500, 404);
        var outcome = health.await(port, running(), Duration.ofSeconds(10), Duration.ofMillis(20));
        assertThat(outcome).isInstanceOf(HealthCheck.Outcome.Healthy.class);
        assertThat(((HealthCheck.Outcome.Healthy) outcome).status()).isEqualTo(404);
    }

    @Test
    void anAppThatOnlyAnswers500TimesOutWithThatAsTheReason() throws Exception {
        int port = FreePorts.pick();
        http(port, 500);
        var outcome = health.await(port, running(), Duration.ofMillis(300), Duration.ofMillis(20));
        assertThat(outcome).isEqualTo(new HealthCheck.Outcome.TimedOut("it answered HTTP 500"));
    }

    @Test
    void somethingThatListensButDoesNotSpeakHttpIsNotHealthy() throws Exception {
        ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        toClose.add(listener);
        Thread.ofVirtual().start(() -> {
            while (!listener.isClosed()) {
                try (Socket s = listener.accept(); OutputStream out = s.getOutputStream()) {
                    out.write("SSH-2.0-OpenSSH_9.6\r\n".getBytes(StandardCharsets.US_ASCII));
                } catch (IOException e) {
                    return;
                }
            }
        });
        var outcome = health.await(listener.getLocalPort(), running(), Duration.ofMillis(300), Duration.ofMillis(20));
        assertThat(outcome).isInstanceOf(HealthCheck.Outcome.TimedOut.class);
        assertThat(((HealthCheck.Outcome.TimedOut) outcome).lastProblem()).contains("did not answer HTTP").contains("SSH-2.0");
    }

    @Test
    void nothingListeningTimesOutAsConnectionRefused() throws Exception {
        var outcome = health.await(FreePorts.pick(), running(), Duration.ofMillis(200), Duration.ofMillis(50));
        assertThat(outcome).isEqualTo(new HealthCheck.Outcome.TimedOut("connection refused"));
    }

    @Test
    void anAppThatListensNowhereIsToldSoOnceAndItsTimeoutSaysSo() throws Exception {
        HealthCheck soon = new HealthCheck(Duration.ofMillis(300));
        List<Duration> told = new java.util.concurrent.CopyOnWriteArrayList<>();
        var outcome = soon.await(FreePorts.pick(), running(), Duration.ofSeconds(2), Duration.ofMillis(50), told::add);
        assertThat(outcome).isEqualTo(new HealthCheck.Outcome.TimedOut(HealthCheck.LISTENED_NOWHERE));
        assertThat(told).singleElement().satisfies(d -> assertThat(d).isGreaterThanOrEqualTo(Duration.ofMillis(300)));
    }

    @Test
    void anAppThatListensOnlyLaterIsNotToldItListensNowhere() throws Exception {
        int port = FreePorts.pick();
        HealthCheck soon = new HealthCheck(Duration.ofMillis(300));
        List<Duration> told = new java.util.concurrent.CopyOnWriteArrayList<>();
        // a real app that listens on its port after a second, as one that connects to its database first does
        Process app = new ProcessBuilder("node", "-e", "setTimeout(() => require('http').createServer((q, r) => r.end('hi'))"
                + ".listen(" + port + ", '127.0.0.1'), 1000)").start();
        toClose.add(app::destroyForcibly);
        var outcome = soon.await(port, app, Duration.ofSeconds(30), Duration.ofMillis(50), told::add);
        assertThat(outcome).isInstanceOf(HealthCheck.Outcome.Healthy.class);
        assertThat(told).as("told while it did not listen yet, and it still became healthy").hasSize(1);
    }

    @Test
    void anAppThatExitsEndsTheWaitAtOnceWithItsExitCode() throws Exception {
        Process app = new ProcessBuilder("sh", "-c", "sleep 0.2; exit 3").start();
        long t0 = System.nanoTime();
        var outcome = health.await(FreePorts.pick(), app, Duration.ofSeconds(30), Duration.ofSeconds(10));
        assertThat(outcome).isEqualTo(new HealthCheck.Outcome.Exited(3));
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
        assertThat(app.waitFor(1, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void statusLinesAreParsedStrictly() throws Exception {
        assertThat(HealthCheck.status("HTTP/1.1 200 OK")).isEqualTo(200);
        assertThat(HealthCheck.status("HTTP/1.0 302 Found")).isEqualTo(302);
        assertThat(HealthCheck.status("HTTP/1.1 404")).isEqualTo(404);
        for (String bad : List.of("", "HTTP/1.1", "HTTP/1.1 20", "HTTP/1.1 2000 OK", "HTTP/1.1 abc OK", "ICY 200 OK")) {
            assertThatThrownBy(() -> HealthCheck.status(bad)).as(bad).isInstanceOf(IOException.class)
                    .hasMessageContaining("did not answer HTTP");
        }
    }

    @Test
    void anAppListeningOnAnotherPortIsToldApartInSecondsNamingThePort() throws IOException {
        // a real app that ignores $PORT: node listening on a port of its own choosing
        Process app = new ProcessBuilder("node", "-e",
                "const s = require('http').createServer((q, r) => r.end('hi')).listen(0, '127.0.0.1', () => console.log(s.address().port))")
                .redirectErrorStream(true).start();
        toClose.add(app::destroyForcibly);
        int chosen = Integer.parseInt(new java.io.BufferedReader(new java.io.InputStreamReader(app.getInputStream(),
                StandardCharsets.UTF_8)).readLine().strip());
        int given = 0;
        long started = 0;
        HealthCheck.Outcome outcome = null;
        // the port given is free when picked; another process of the machine may take it meanwhile and answer there
        for (int attempt = 0; attempt < 5 && !(outcome instanceof HealthCheck.Outcome.WrongPort); attempt++) {
            try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                given = free.getLocalPort();
            }
            started = System.nanoTime();
            outcome = health.await(given, app, Duration.ofSeconds(60), Duration.ofMillis(50));
        }
        assertThat(outcome).isEqualTo(new HealthCheck.Outcome.WrongPort(java.util.Set.of(chosen)));
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("told well before the timeout").isLessThan(Duration.ofSeconds(30));
        assertThat(LocalProcessRuntime.wrongPort(given, java.util.Set.of(chosen)))
                .isEqualTo("App listens on port " + chosen + ", not on $PORT (" + given + "): make it listen on the port in the "
                        + "PORT environment variable, e.g. port: Number(process.env.PORT) || " + chosen);
    }

    @Test
    void theListeningPortsOfAProcessAreReadFromProc() throws IOException {
        try (ServerSocket mine = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            assertThat(ListeningPorts.of(ProcessHandle.current())).contains(mine.getLocalPort());
        }
        assertThat(ListeningPorts.of(running().toHandle())).isEmpty();
    }
}
