package dev.slipway.drains;

import java.time.Instant;

/**
 * A line a drain ships: a log entry ({@code source} logs: {@code level} and {@code message}) or a request line
 * ({@code source} requests: the request's fields, {@code message} its one-line summary).
 *
 * @param owner the deployment or cron run whose log it is
 */
record DrainLine(long seq, String source, String owner, Instant at, String level, String message, String method, String path,
                 int status, double durationMs, long bytes, String client) {
    static DrainLine log(long seq, String owner, Instant at, String level, String message) {
        return new DrainLine(seq, LogDrain.LOGS, owner, at, level, message, null, null, 0, 0, 0, null);
    }

    static DrainLine request(long seq, String deployment, Instant at, String method, String path, int status, long micros, long bytes,
                             String client) {
        double ms = micros / 1000.0;
        String summary = method + " " + path + " " + status + " " + String.format(java.util.Locale.ROOT, "%.1fms", ms) + " " + bytes
                + "B " + client;
        return new DrainLine(seq, LogDrain.REQUESTS, deployment, at, status >= 500 ? "error" : "info", summary, method, path, status,
                ms, bytes, client);
    }
}
