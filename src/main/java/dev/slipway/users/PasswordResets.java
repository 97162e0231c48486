package dev.slipway.users;

import org.jdbi.v3.core.Jdbi;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * One-time links to choose a new password. A link works once, for {@link #VALID}; using it ends every session of
 * its user and voids their other links. Only a hash of the token is stored, as for sessions.
 */
public final class PasswordResets {
    public static final Duration VALID = Duration.ofMinutes(30);
    /** A user gets at most one link per this long, so a form cannot be used to flood their mailbox. */
    static final Duration BETWEEN = Duration.ofMinutes(1);

    private final Jdbi jdbi;
    private final Clock clock;

    public PasswordResets(Jdbi jdbi, Clock clock) {
        this.jdbi = jdbi;
        this.clock = clock;
    }

    /** A new link's token for this user; empty when they were sent one less than {@link #BETWEEN} ago. */
    public Optional<String> issue(User user) {
        Instant now = clock.instant();
        return jdbi.inTransaction(h -> {
            boolean recent = h.createQuery("SELECT COUNT(*) FROM password_resets WHERE user_id = :u AND created_at > :since")
                    .bind("u", user.id()).bind("since", now.minus(BETWEEN)).mapTo(Integer.class).one() > 0;
            if (recent) return Optional.empty();
            String token = SessionStore.random();
            h.createUpdate("INSERT INTO password_resets (token_hash, user_id, created_at, expires_at) VALUES (:h, :u, :at, :exp)")
                    .bind("h", SessionStore.hash(token)).bind("u", user.id()).bind("at", now).bind("exp", now.plus(VALID))
                    .execute();
            return Optional.of(token);
        });
    }

    /** Whether this token is a link that still works (for showing its form). */
    public boolean valid(String token) {
        return userOf(token).isPresent();
    }

    /**
     * Sets the password of the token's user, ends their sessions and voids their links, in one transaction; empty
     * when the token is unknown, used or expired. IllegalArgumentException for a weak password (the link still works).
     */
    public Optional<String> redeem(String token, String password) {
        String problem = Passwords.problem(password);
        if (problem != null) throw new IllegalArgumentException("the password " + problem);
        if (userOf(token).isEmpty()) return Optional.empty(); // a dead link costs no Argon2 hash
        String hash = Passwords.hash(password);
        return jdbi.inTransaction(h -> {
            Optional<String> user = h.createQuery("SELECT user_id FROM password_resets WHERE token_hash = :h AND expires_at > :now")
                    .bind("h", SessionStore.hash(token)).bind("now", clock.instant()).mapTo(String.class).findOne();
            if (user.isEmpty()) return user;
            // the delete decides between two uses of one link at once: only one of them removes the row
            int taken = h.createUpdate("DELETE FROM password_resets WHERE token_hash = :h").bind("h", SessionStore.hash(token)).execute();
            if (taken != 1) return Optional.<String>empty();
            h.createUpdate("UPDATE users SET password_hash = :hash WHERE id = :id").bind("hash", hash).bind("id", user.get()).execute();
            h.createUpdate("DELETE FROM user_sessions WHERE user_id = :id").bind("id", user.get()).execute();
            h.createUpdate("DELETE FROM password_resets WHERE user_id = :id").bind("id", user.get()).execute();
            return user;
        });
    }

    private Optional<String> userOf(String token) {
        if (token == null || token.isBlank() || token.length() > 100) return Optional.empty();
        return jdbi.withHandle(h -> h.createQuery("SELECT user_id FROM password_resets WHERE token_hash = :h AND expires_at > :now")
                .bind("h", SessionStore.hash(token)).bind("now", clock.instant()).mapTo(String.class).findOne());
    }

    /** Drops expired links; returns how many. */
    public int sweep() {
        return jdbi.withHandle(h -> h.createUpdate("DELETE FROM password_resets WHERE expires_at <= :now")
                .bind("now", clock.instant()).execute());
    }
}
