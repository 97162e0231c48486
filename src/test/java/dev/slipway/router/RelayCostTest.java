package dev.slipway.router;

import com.sun.management.ThreadMXBean;
import java.io.BufferedInputStream;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What one relayed request costs the relay's own threads: heap bytes allocated (steady whatever the machine's
 * load, and checked here) and CPU time (printed only: {@code bench/relay-cost.sh} prints both). Keep-alive
 * clients on loopback send wrk's request to an app answering as Node's {@code http} does, through the relay.
 */
class RelayCostTest {
    static final int CLIENTS = 4;
    static final int WARMUP = Integer.getInteger("relay.cost.warmup", 20_000);
    static final int MEASURED = Integer.getInteger("relay.cost.requests", 40_000);
    /** Allocated bytes per request above which the relay's hot path has regressed (4.2 KB before the relay parsed heads in place). */
    static final long MAX_BYTES_PER_REQUEST = 256;

    @Test
    void aRelayedRequestAllocatesAlmostNothing() throws Exception {
        try (ServerSocket app = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread.ofPlatform().daemon().start(() -> serve(app));
            RouteTable routes = new RouteTable("localhost");
            routes.setProduction("plain", new Target.Upstream(app.getLocalPort()));
            try (AppsListener listener = AppsListener.start("127.0.0.1", 0, routes, port -> false)) {
                byte[] request = ("GET / HTTP/1.1\r\nHost: plain.localhost:" + listener.port() + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
                run(listener.port(), request, WARMUP);
                var threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
                long[] ids = relayThreads();
                // the steady state: on a loaded machine the JIT may still be compiling the hot path after the
                // warm-up (interpreted code allocates what compiled code keeps in registers), so the best of
                // up to three rounds is what is held to the limit
                double perRequest = Double.MAX_VALUE;
                for (int round = 1; round <= 3 && perRequest >= MAX_BYTES_PER_REQUEST; round++) {
                    long bytes0 = sum(threads.getThreadAllocatedBytes(ids));
                    long cpu0 = sum(threads.getThreadCpuTime(ids));
                    run(listener.port(), request, MEASURED);
                    long bytes = sum(threads.getThreadAllocatedBytes(ids)) - bytes0;
                    long cpu = sum(threads.getThreadCpuTime(ids)) - cpu0;
                    perRequest = Math.min(perRequest, (double) bytes / MEASURED);
                    System.out.printf("relay cost, round %d: %d requests, %.1f bytes allocated and %.1f us CPU per request (relay threads: %d)%n",
                            round, MEASURED, (double) bytes / MEASURED, cpu / 1e3 / MEASURED, ids.length);
                }
                assertThat(perRequest).isLessThan(MAX_BYTES_PER_REQUEST);
            }
        }
    }

    private static long[] relayThreads() {
        List<Long> ids = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) if (t.getName().startsWith("apps-relay-")) ids.add(t.threadId());
        assertThat(ids).isNotEmpty();
        return ids.stream().mapToLong(Long::longValue).toArray();
    }

    private static long sum(long[] values) {
        long s = 0;
        for (long v : values) s += v;
        return s;
    }

    /** {@code total} requests over {@link #CLIENTS} keep-alive connections, each answered before the next. */
    private static void run(int port, byte[] request, int total) throws Exception {
        AtomicLong failures = new AtomicLong();
        List<Thread> clients = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            clients.add(Thread.ofPlatform().start(() -> {
                try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
                    s.setTcpNoDelay(true);
                    InputStream in = s.getInputStream();
                    OutputStream out = s.getOutputStream();
                    for (int i = 0; i < total / CLIENTS; i++) {
                        out.write(request);
                        if (!readResponse(in).startsWith("HTTP/1.1 200")) failures.incrementAndGet();
                    }
                } catch (IOException e) {
                    failures.incrementAndGet();
                }
            }));
        }
        for (Thread t : clients) t.join();
        assertThat(failures.get()).isZero();
    }

    /** One response with a Content-Length body; returns its head. */
    private static String readResponse(InputStream in) throws IOException {
        String head = readHead(in);
        int at = head.toLowerCase().indexOf("content-length: ");
        int length = Integer.parseInt(head.substring(at + 16, head.indexOf('\r', at)));
        if (in.readNBytes(length).length != length) throw new IOException("short body");
        return head;
    }

    private static String readHead(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder(256);
        int matched = 0;
        while (matched < 4) {
            int c = in.read();
            if (c < 0) throw new IOException("closed");
            head.append((char) c);
            matched = c == "\r\n\r\n".charAt(matched) ? matched + 1 : (c == '\r' ? 1 : 0);
        }
        return head.toString();
    }

    /** Answers every request as Node's http module answers {@code res.end("fixture:node-plain\n")}. */
    private static void serve(ServerSocket app) {
        byte[] answer = ("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nDate: Mon, 23 Nov 2026 19:00:00 GMT\r\n"
                + "Connection: keep-alive\r\nKeep-Alive: timeout=5\r\nContent-Length: 19\r\n\r\nfixture:node-plain\n")
                .getBytes(StandardCharsets.ISO_8859_1);
        while (!app.isClosed()) {
            Socket s;
            try {
                s = app.accept();
            } catch (IOException e) {
                return;
            }
            Thread.ofPlatform().daemon().start(() -> {
                try (s) {
                    s.setTcpNoDelay(true);
                    InputStream in = new BufferedInputStream(s.getInputStream());
                    OutputStream out = s.getOutputStream();
                    while (true) {
                        readHead(in);
                        out.write(answer);
                    }
                } catch (IOException ignored) {
                    // the relay closed it
                }
            });
        }
    }
}
