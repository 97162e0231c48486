package dev.slipway.auth;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Resolves {@code Authorization: Bearer <key>} to a principal. Hits are cached for {@link #CACHE_TTL}
 * so a hot key costs no query per request, while a key revoked on any server stops working on
 * every server within that time.
 */
public final class Authenticator {
    static final Duration CACHE_TTL = Duration.ofMillis(500);
    private static final Duration TOUCH_EVERY = Duration.ofMinutes(1);
    private static final Pattern BEARER = Pattern.compile("^Bearer ([A-Za-z0-9_]{10,200})$");

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
        var m = BEARER.matcher(authorization.trim());
        if (!m.matches()) return Optional.empty();
        String secret = m.group(1);
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
