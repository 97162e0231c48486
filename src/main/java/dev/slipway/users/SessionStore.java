package dev.slipway.users;

import dev.slipway.core.Digests;
import org.jdbi.v3.core.Jdbi;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;

/**
 * Dashboard sessions. The browser holds a random 256-bit token; the store holds only its SHA-256, so a
 * copy of the store signs no one in. Each session has its own CSRF token for the forms it is shown.
 */
public final class SessionStore {
    public static final Duration LIFETIME = Duration.ofHours(12);
    private static final SecureRandom RANDOM = new SecureRandom();

    /** A session just created: the token exists in plain only here and in the cookie. */
    public record Issued(String token, String csrfToken, Instant expiresAt) {}

    /** A valid session: who, and the CSRF token its forms must carry. */
    public record Session(User user, String csrfToken, Instant expiresAt) {}

    private final Jdbi jdbi;
    private final Clock clock;
    private final UserStore users;

    public SessionStore(Jdbi jdbi, Clock clock, UserStore users) {
        this.jdbi = jdbi;
        this.clock = clock;
        this.users = users;
    }

    public Issued create(User user) {
        String token = random();
        String csrf = random();
        Instant now = clock.instant();
        Instant expires = now.plus(LIFETIME);
        jdbi.useHandle(h -> h.createUpdate("""
                        INSERT INTO user_sessions (token_hash, user_id, csrf_token, created_at, expires_at)
                        VALUES (:hash, :user, :csrf, :at, :expires)""")
                .bind("hash", hash(token)).bind("user", user.id()).bind("csrf", csrf).bind("at", now)
                .bind("expires", expires).execute());
        return new Issued(token, csrf, expires);
    }

    /** The session of a cookie's token, if it exists and has not expired. */
    public Optional<Session> find(String token) {
        if (token == null || token.isEmpty() || token.length() > 100) return Optional.empty();
        Instant now = clock.instant();
        return jdbi.withHandle(h -> h.createQuery(
                        "SELECT user_id, csrf_token, expires_at FROM user_sessions WHERE token_hash = :hash AND expires_at > :now")
                .bind("hash", hash(token)).bind("now", now)
                .map((rs, ctx) -> new Object[]{rs.getString(1), rs.getString(2), rs.getTimestamp(3).toInstant()})
                .findOne())
                .flatMap(row -> users.find((String) row[0]).map(u -> new Session(u, (String) row[1], (Instant) row[2])));
    }

    public void delete(String token) {
        if (token == null) return;
        jdbi.useHandle(h -> h.createUpdate("DELETE FROM user_sessions WHERE token_hash = :hash")
                .bind("hash", hash(token)).execute());
    }

    /** Drops expired sessions; returns how many. */
    public int sweep() {
        return jdbi.withHandle(h -> h.createUpdate("DELETE FROM user_sessions WHERE expires_at <= :now")
                .bind("now", clock.instant()).execute());
    }

    static String random() {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    static String hash(String token) {
        return Digests.sha256Hex(token);
    }
}
