package dev.slipway.runtime;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** An app is healthy once it answers HTTP on its port with any status below 500. */
final class HealthCheck {
    sealed interface Outcome {
        record Healthy(int status, Duration after) implements Outcome {}
        record Exited(int exitCode) implements Outcome {}
        record TimedOut(String lastProblem) implements Outcome {}
    }

    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(2);
    /** One client for every probe, made at the first: building one loads the TLS stack, slowing the server's start. */
    private static final class Probes {
        static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(PROBE_TIMEOUT).followRedirects(HttpClient.Redirect.NEVER).build();
    }

    /** Probes until healthy, the process exits, or the deadline passes. */
    Outcome await(int port, Process process, Duration timeout, Duration poll) {
        long started = System.nanoTime();
        long deadline = started + timeout.toNanos();
        String lastProblem = "no answer";
        while (true) {
            if (!process.isAlive()) return new Outcome.Exited(exitCode(process));
            try {
                int status = probe(port);
                if (status < 500) return new Outcome.Healthy(status, Duration.ofNanos(System.nanoTime() - started));
                lastProblem = "it answered HTTP " + status;
            } catch (Exception e) {
                lastProblem = e instanceof java.net.ConnectException ? "connection refused" : e.toString();
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                    return new Outcome.TimedOut("interrupted");
                }
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) return new Outcome.TimedOut(lastProblem);
            try {
                // returns early when the process exits
                process.onExit().get(Math.min(left, poll.toNanos()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException ignored) {
                // still running: probe again
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new Outcome.TimedOut("interrupted");
            } catch (java.util.concurrent.ExecutionException ignored) {
                // onExit does not fail
            }
        }
    }

    private int probe(int port) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/"))
                .timeout(PROBE_TIMEOUT).header("User-Agent", "slipway-health").GET().build();
        return Probes.CLIENT.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
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
