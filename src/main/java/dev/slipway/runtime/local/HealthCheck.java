package dev.slipway.runtime.local;

import dev.slipway.runtime.HealthSpec;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * An app is healthy once it answers a GET of its health check's path on its port with a status in its range (by
 * default: any status below 500 on {@code /}).
 * <p>
 * A deploy waits on this, so the probes are cheap and frequent while the app is young: a refused
 * connection costs one connect, and the pause between probes is a fortieth of the time waited so far
 * (at least {@link #FIRST_PAUSE}, at most the configured interval). The wait past the moment the app
 * listens is then at most ~2.5% of its start-up time (3 ms for a 130 ms express start), and a slow
 * app is not probed more often than the configured interval.
 * Each probe is one plain HTTP/1.1 request on its own connection, on the calling thread.
 */
final class HealthCheck {
    sealed interface Outcome {
        record Healthy(int status, Duration after) implements Outcome {}
        record Exited(int exitCode) implements Outcome {}
        record TimedOut(String lastProblem) implements Outcome {}
        /** Nothing answers on the port, while the app listens on these others. */
        record WrongPort(Set<Integer> listening) implements Outcome {}
    }

    /** How long the app must listen elsewhere, with nothing on its port, before that is its answer. */
    static final Duration WRONG_PORT_AFTER = Duration.ofSeconds(2);
    /** When an app that listens on no port at all is told so (it is still waited for: it may wait for its database). */
    static final Duration NOTHING_LISTENS_AFTER = Duration.ofSeconds(5);
    static final String LISTENED_NOWHERE = "it listened on no port at all";

    private final Duration nothingListensAfter;

    HealthCheck() {
        this(NOTHING_LISTENS_AFTER);
    }

    HealthCheck(Duration nothingListensAfter) {
        this.nothingListensAfter = nothingListensAfter;
    }

    static final Duration FIRST_PAUSE = Duration.ofMillis(2);
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(2);
    private static final int MAX_STATUS_LINE = 8192;

    /** Probes until healthy, the process exits, or the deadline passes; {@code poll} is the longest pause between probes. */
    Outcome await(int port, Process process, Duration timeout, Duration poll) {
        return await(port, process, timeout, poll, waited -> { });
    }

    Outcome await(int port, Process process, Duration timeout, Duration poll, Consumer<Duration> nothingListens) {
        return await(port, HealthSpec.DEFAULT, process, timeout, poll, nothingListens);
    }

    /**
     * As {@link #await(int, Process, Duration, Duration)}; {@code nothingListens} hears, once, that the app has listened
     * on no port at all for {@link #NOTHING_LISTENS_AFTER}, and a timeout then says {@value #LISTENED_NOWHERE}.
     */
    Outcome await(int port, HealthSpec health, Process process, Duration timeout, Duration poll, Consumer<Duration> nothingListens) {
        long started = System.nanoTime();
        long deadline = started + timeout.toNanos();
        String lastProblem = "no answer";
        boolean listened = false;
        boolean told = false;
        long elsewhereSince = 0;
        long nextLook = started + WRONG_PORT_AFTER.toNanos() / 2;
        while (true) {
            if (!process.isAlive()) return new Outcome.Exited(exitCode(process));
            boolean answered = false;
            try {
                int status = probe(port, health.path());
                if (health.passes(status)) return new Outcome.Healthy(status, Duration.ofNanos(System.nanoTime() - started));
                lastProblem = "it answered HTTP " + status
                        + (health.equals(HealthSpec.DEFAULT) ? "" : " on " + health.path() + " (its health check wants " + health.range() + ")");
                answered = true;
            } catch (ConnectException e) {
                lastProblem = "connection refused";
            } catch (IOException e) {
                // in the sandbox pasta accepts on the app's port and resets when nothing listens behind it
                lastProblem = e.getMessage() == null ? e.toString() : e.getMessage();
            }
            if (!answered && System.nanoTime() >= nextLook) {
                nextLook = System.nanoTime() + WRONG_PORT_AFTER.toNanos() / 4;
                Set<Integer> elsewhere = ListeningPorts.of(process.toHandle());
                listened |= !elsewhere.isEmpty();
                long waited = System.nanoTime() - started;
                if (!listened && !told && waited >= nothingListensAfter.toNanos()) {
                    told = true;
                    nothingListens.accept(Duration.ofNanos(waited));
                }
                if (elsewhere.isEmpty() || elsewhere.contains(port)) {
                    elsewhereSince = 0;
                } else if (elsewhereSince == 0) {
                    elsewhereSince = System.nanoTime();
                } else if (System.nanoTime() - elsewhereSince >= WRONG_PORT_AFTER.toNanos()) {
                    return new Outcome.WrongPort(elsewhere);
                }
            }
            long now = System.nanoTime();
            long left = deadline - now;
            if (left <= 0) return new Outcome.TimedOut(told && !listened ? LISTENED_NOWHERE : lastProblem);
            long pause = pause(Duration.ofNanos(now - started), poll).toNanos();
            try {
                // returns early when the process exits
                process.onExit().get(Math.min(left, pause), TimeUnit.NANOSECONDS);
            } catch (TimeoutException ignored) {
                // still running: probe again
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new Outcome.TimedOut("interrupted");
            } catch (ExecutionException ignored) {
                // onExit does not fail
            }
        }
    }

    /** The pause after a failed probe, {@code waited} after the start: a fortieth of it, within [FIRST_PAUSE, poll]. */
    static Duration pause(Duration waited, Duration poll) {
        Duration least = FIRST_PAUSE.compareTo(poll) < 0 ? FIRST_PAUSE : poll;
        Duration share = waited.dividedBy(40);
        if (share.compareTo(poll) > 0) return poll;
        return share.compareTo(least) < 0 ? least : share;
    }

    /**
     * GET {@code path} and the status code of the answer.
     *
     * @throws ConnectException nothing listens on the port yet
     * @throws IOException      something listens but gave no HTTP status line within the probe timeout
     */
    static int probe(int port, String path) throws IOException {
        try (Socket socket = new Socket()) {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress("127.0.0.1", port), (int) PROBE_TIMEOUT.toMillis());
            socket.setSoTimeout((int) PROBE_TIMEOUT.toMillis());
            OutputStream out = socket.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nUser-Agent: slipway-health\r\n"
                    + "Accept: */*\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return status(statusLine(new BufferedInputStream(socket.getInputStream(), 512)));
        } catch (SocketTimeoutException e) {
            throw new IOException("no HTTP answer within " + PROBE_TIMEOUT.toSeconds() + " s", e);
        }
    }

    /** The first line of the answer, without its line end. */
    private static String statusLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0 && c != '\n') {
            if (line.length() >= MAX_STATUS_LINE) throw new IOException("it did not answer HTTP (no status line)");
            line.append((char) c);
        }
        if (c < 0 && line.isEmpty()) throw new IOException("it closed the connection without answering");
        return line.toString().stripTrailing();
    }

    /** The code of a status line such as {@code HTTP/1.1 200 OK}. */
    static int status(String line) throws IOException {
        // "HTTP/" version SP 3DIGIT [SP reason]
        int sp = line.indexOf(' ');
        if (!line.startsWith("HTTP/") || sp < 0 || line.length() < sp + 4
                || (line.length() > sp + 4 && line.charAt(sp + 4) != ' ')) {
            throw new IOException("it did not answer HTTP (" + printable(line) + ")");
        }
        String code = line.substring(sp + 1, sp + 4);
        if (!code.chars().allMatch(ch -> ch >= '0' && ch <= '9')) {
            throw new IOException("it did not answer HTTP (" + printable(line) + ")");
        }
        return Integer.parseInt(code);
    }

    private static String printable(String s) {
        String shown = s.length() > 60 ? s.substring(0, 60) + "…" : s;
        return shown.chars().allMatch(ch -> ch >= 0x20 && ch < 0x7f || ch == '…') ? "\"" + shown + "\"" : "binary data";
    }

    private static int exitCode(Process p) {
        try {
            return p.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }
}
