package dev.slipway.auth;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Resolves {@code Authorization: Bearer <key>} to a principal. Hits are cached for {@link #CACHE_TTL}
 * so a hot key costs no query per request, while a key revoked on any server stops working on
 * every server within that time.
 */
public final class Authenticator {
    static final Duration CACHE_TTL = Duration.ofMillis(500);
    private static final Duration TOUCH_EVERY = Duration.ofMinutes(1);
    private static final String BEARER = "Bearer ";
    private static final int SHORTEST_SECRET = 10;
    private static final int LONGEST_SECRET = 200;

    private record Entry(Principal principal, Instant fetchedAt) {}

    private final KeyStore keys;
    private final Clock clock;
    private final ConcurrentHashMap<String, Entry> cache = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Instant> lastTouched = new ConcurrentHashMap<>();

    public Authenticator(KeyStore keys, Clock clock) {
        this.keys = keys;
        this.clock = clock;
    }

    /** The principal for an Authorization header value; empty when missing, malformed, unknown or revoked. */
    public Optional<Principal> authenticate(String authorization) {
        if (authorization == null) return Optional.empty();
        String secret = secret(authorization.trim());
        if (secret == null) return Optional.empty();
        Instant now = clock.instant();
        Entry entry = cache.get(secret);
        if (entry == null || entry.fetchedAt().plus(CACHE_TTL).isBefore(now)) {
            entry = lookup(secret, now);
            if (entry == null) {
                cache.remove(secret);
                return Optional.empty();
            }
            if (cache.size() > 10_000) cache.clear();
            cache.put(secret, entry);
        }
        touch(entry.principal().keyId(), now);
        return Optional.of(entry.principal());
    }

    /** What follows {@code Bearer } when it is 10 to 200 letters, digits or underscores; else null. Every request asks. */
    static String secret(String header) {
        if (!header.startsWith(BEARER)) return null;
        int length = header.length() - BEARER.length();
        if (length < SHORTEST_SECRET || length > LONGEST_SECRET) return null;
        for (int i = BEARER.length(); i < header.length(); i++) {
            char c = header.charAt(i);
            boolean allowed = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_';
            if (!allowed) return null;
        }
        return header.substring(BEARER.length());
    }

    /**
     * Drops a key from this server's cache, so a revocation made here takes effect on the next request
     * (other servers notice within {@link #CACHE_TTL}).
     */
    public void forget(String keyId) {
        cache.values().removeIf(e -> e.principal().keyId().equals(keyId));
    }

    private Entry lookup(String secret, Instant now) {
        return keys.principal(secret).map(p -> new Entry(p, now)).orElse(null);
    }

    private void touch(String keyId, Instant now) {
        Instant previous = lastTouched.get(keyId);
        if (previous != null && previous.plus(TOUCH_EVERY).isAfter(now)) return;
        lastTouched.put(keyId, now);
        Thread.ofVirtual().name("key-touch").start(() -> {
            try {
                keys.touch(keyId, now);
            } catch (RuntimeException ignored) {
                // last-used is advisory; a failed write must not fail the request
            }
        });
    }
}
