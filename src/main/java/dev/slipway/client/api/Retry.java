package dev.slipway.client.api;

import java.net.http.HttpHeaders;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * When to try a request again: a 429 after its {@code Retry-After}; a 5xx, a connection failure or
 * an {@code idempotency_conflict} (the first try is still running) after an exponential backoff
 * (0.5 s, 1 s, 2 s, 4 s, with jitter). At most {@link #ATTEMPTS} tries in all.
 */
public final class Retry {
    public static final int ATTEMPTS = 5;
    private static final Duration BASE = Duration.ofMillis(500);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(8);
    private static final Duration MAX_RETRY_AFTER = Duration.ofMinutes(5);

    private Retry() {}

    static boolean retryable(int status) {
        return status == 429 || status == 500 || status == 502 || status == 503 || status == 504;
    }

    /** The pause before try {@code attempt + 1} (attempt counts from 1). */
    public static Duration backoff(int attempt) {
        long millis = Math.min(MAX_BACKOFF.toMillis(), BASE.toMillis() << Math.min(attempt - 1, 10));
        return Duration.ofMillis(millis + ThreadLocalRandom.current().nextLong(millis / 4 + 1));
    }

    /** {@code Retry-After} in seconds (the API sends seconds), else the backoff. */
    static Duration retryAfter(HttpHeaders headers, int attempt) {
        return headers.firstValue("Retry-After").map(v -> {
            try {
                long s = Long.parseLong(v.trim());
                return s < 0 ? null : Duration.ofSeconds(Math.min(s, MAX_RETRY_AFTER.toSeconds()));
            } catch (NumberFormatException e) {
                return null; // an HTTP date: not what this API sends; back off instead
            }
        }).orElse(backoff(attempt));
    }
}
