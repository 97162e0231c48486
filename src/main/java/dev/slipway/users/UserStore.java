package dev.slipway.users;

import dev.slipway.core.Ids;
import java.util.function.Supplier;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.mapper.RowMapper;

import java.time.Clock;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/** Dashboard users; emails are unique across accounts and compared without case. */
public final class UserStore {
    private static final Pattern EMAIL = Pattern.compile("^[^@\\s<>\"]{1,64}@[A-Za-z0-9.-]{1,189}$");
    private static final RowMapper<User> MAPPER = (rs, ctx) -> new User(rs.getString("id"), rs.getString("account_id"),
            rs.getString("email"), rs.getString("password_hash"), rs.getTimestamp("created_at").toInstant());

    private final Jdbi jdbi;
    private final Clock clock;
    private final Ids ids;

    public UserStore(Jdbi jdbi, Clock clock) {
        this.jdbi = jdbi;
        this.clock = clock;
        this.ids = new Ids(clock);
    }

    /** The canonical form of an email, or null when it is not one. */
    public static String normalize(String email) {
        if (email == null) return null;
        String e = email.trim().toLowerCase(Locale.ROOT);
        return EMAIL.matcher(e).matches() ? e : null;
    }

    /** Creates a user; IllegalArgumentException (with a message for people) for a bad email, a weak password or a taken email. */
    public User create(String accountId, String email, String password) {
        String problem = Passwords.problem(password);
        if (problem != null) throw new IllegalArgumentException("the password " + problem);
        return createHashed(accountId, email, () -> Passwords.hash(password));
    }

    /** As {@link #create}, with the password's hash made by {@code hash} (which may be under way already). */
    User createHashed(String accountId, String email, Supplier<String> hash) {
        String normalized = normalize(email);
        if (normalized == null) throw new IllegalArgumentException("'" + email + "' is not an email address");
        if (findByEmail(normalized).isPresent()) {
            throw new IllegalArgumentException("a user with email " + normalized + " already exists");
        }
        User user = new User(ids.next("usr"), accountId, normalized, hash.get(), clock.instant());
        try {
            jdbi.useHandle(h -> h.createUpdate("""
                            INSERT INTO users (id, account_id, email, password_hash, created_at)
                            VALUES (:id, :account, :email, :hash, :at)""")
                    .bind("id", user.id()).bind("account", accountId).bind("email", normalized)
                    .bind("hash", user.passwordHash()).bind("at", user.createdAt()).execute());
        } catch (RuntimeException e) {
            if (findByEmail(normalized).isPresent()) {
                throw new IllegalArgumentException("a user with email " + normalized + " already exists");
            }
            throw e;
        }
        return user;
    }

    public Optional<User> find(String id) {
        return jdbi.withHandle(h -> h.createQuery("SELECT * FROM users WHERE id = :id").bind("id", id).map(MAPPER).findOne());
    }

    public Optional<User> findByEmail(String email) {
        String normalized = normalize(email);
        if (normalized == null) return Optional.empty();
        return jdbi.withHandle(h -> h.createQuery("SELECT * FROM users WHERE email = :e").bind("e", normalized)
                .map(MAPPER).findOne());
    }

    public List<User> list(String accountId) {
        return jdbi.withHandle(h -> h.createQuery("SELECT * FROM users WHERE account_id = :a ORDER BY created_at, id")
                .bind("a", accountId).map(MAPPER).list());
    }

    /**
     * Gives the user of this email a new password and ends every dashboard session of theirs, in one transaction;
     * empty when no user has the email. IllegalArgumentException for a weak password.
     */
    public Optional<User> resetPassword(String email, String password) {
        String problem = Passwords.problem(password);
        if (problem != null) throw new IllegalArgumentException("the password " + problem);
        Optional<User> user = findByEmail(email);
        if (user.isEmpty()) return user;
        String hash = Passwords.hash(password);
        jdbi.useTransaction(h -> {
            h.createUpdate("UPDATE users SET password_hash = :hash WHERE id = :id").bind("hash", hash).bind("id", user.get().id()).execute();
            h.createUpdate("DELETE FROM user_sessions WHERE user_id = :id").bind("id", user.get().id()).execute();
        });
        return user;
    }

    /** The user whose email and password these are; empty otherwise (in about the same time either way). */
    public Optional<User> authenticate(String email, String password) {
        Optional<User> user = findByEmail(email);
        if (user.isEmpty()) {
            Passwords.verifyNone(password);
            return Optional.empty();
        }
        return Passwords.verify(password, user.get().passwordHash()) ? user : Optional.empty();
    }
}
