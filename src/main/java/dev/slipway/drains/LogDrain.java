package dev.slipway.drains;

import java.net.URI;
import java.time.Instant;
import java.util.Set;

/**
 * Where a project's logs are shipped.
 *
 * @param url            the target, secrets and all (never shown: {@link #shownUrl} is)
 * @param sources        {@code logs} (each deployment's and cron run's log: build, start, the app's output) and
 *                       {@code requests} (the request log)
 * @param logCursor      the seq of the last log entry shipped
 * @param requestCursor  the seq of the last request line shipped
 */
public record LogDrain(String id, String projectId, String accountId, URI url, String shownUrl, Set<String> sources,
                       long logCursor, long requestCursor, long linesSent, int failures,
                       Instant failingSince, String lastError, Instant nextTryAt, Instant createdAt) {
    public static final String LOGS = "logs";
    public static final String REQUESTS = "requests";
    public static final Set<String> SOURCES = Set.of(LOGS, REQUESTS);

    public boolean ships(String source) {
        return sources.contains(source);
    }

    /** syslog (RFC 5424 over TCP, or TLS) or https (NDJSON batches). */
    public String kind() {
        return url.getScheme().startsWith("syslog") ? "syslog" : "https";
    }
}
