package dev.slipway.users;

import dev.slipway.net.ClientPrefix;
import org.jdbi.v3.core.Jdbi;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * Slows down password guessing. Failed sign-ins are counted per email from one client, and per client, over
 * the last {@link #WINDOW} (a client is its address, an IPv6 one its /64: {@link ClientPrefix}); past a free allowance, each further attempt must wait an
 * exponentially growing delay after the last failure (2 s, 4 s, 8 s … at most {@link #MAX_DELAY}).
 * Not per email alone: then anyone who knows an email could keep its user locked out from everywhere.
 * Counted in the store, so every server behind one PostgreSQL shares the count.
 */
public final class SignInThrottle {
    static final Duration WINDOW = Duration.ofMinutes(15);
    static final Duration MAX_DELAY = Duration.ofMinutes(15);
    static final int FREE_PER_EMAIL = 5;
    static final int FREE_PER_ADDRESS = 20;

    private final Jdbi jdbi;
    private final Clock clock;

    public SignInThrottle(Jdbi jdbi, Clock clock) {
        this.jdbi = jdbi;
        this.clock = clock;
    }

    /** How long this email and address must still wait before an attempt is checked; zero when they may try now. */
    public Duration wait(String email, String address) {
        address = ClientPrefix.of(address);
        Instant now = clock.instant();
        Duration byEmail = email == null ? Duration.ZERO : waitFor(pair(email, address), FREE_PER_EMAIL, now);
        Duration byAddress = waitFor("ip:" + address, FREE_PER_ADDRESS, now);
        return byEmail.compareTo(byAddress) >= 0 ? byEmail : byAddress;
    }

    public void recordFailure(String email, String address) {
        String client = ClientPrefix.of(address);
        Instant now = clock.instant();
        jdbi.useTransaction(h -> {
            if (email != null) {
                h.createUpdate("INSERT INTO sign_in_failures (subject, at) VALUES (:s, :at)")
                        .bind("s", pair(email, client)).bind("at", now).execute();
            }
            h.createUpdate("INSERT INTO sign_in_failures (subject, at) VALUES (:s, :at)")
                    .bind("s", "ip:" + client).bind("at", now).execute();
        });
    }

    /** A successful sign-in forgets the email's failures from that address (the address keeps its count). */
    public void clear(String email, String address) {
        jdbi.useHandle(h -> h.createUpdate("DELETE FROM sign_in_failures WHERE subject = :s")
                .bind("s", pair(email, ClientPrefix.of(address))).execute());
    }

    private static String pair(String email, String address) {
        String subject = "email:" + address + " " + email;
        return subject.length() > 300 ? subject.substring(0, 300) : subject;
    }

    /** Drops failures older than the window; returns how many. */
    public int sweep() {
        return jdbi.withHandle(h -> h.createUpdate("DELETE FROM sign_in_failures WHERE at < :since")
                .bind("since", clock.instant().minus(WINDOW)).execute());
    }

    private Duration waitFor(String subject, int free, Instant now) {
        record Failures(long count, Instant last) {}
        Failures f = jdbi.withHandle(h -> h.createQuery(
                        "SELECT COUNT(*), MAX(at) FROM sign_in_failures WHERE subject = :s AND at > :since")
                .bind("s", subject).bind("since", now.minus(WINDOW))
                .map((rs, ctx) -> new Failures(rs.getLong(1), rs.getTimestamp(2) == null ? null : rs.getTimestamp(2).toInstant()))
                .one());
        if (f.count() < free || f.last() == null) return Duration.ZERO;
        Duration delay = delay(f.count() - free);
        Duration left = Duration.between(now, f.last().plus(delay));
        return left.isNegative() ? Duration.ZERO : left;
    }

    /** 2 s after the first failure past the allowance, doubling, capped. */
    static Duration delay(long over) {
        if (over >= 20) return MAX_DELAY;
        Duration d = Duration.ofSeconds(2L << over);
        return d.compareTo(MAX_DELAY) > 0 ? MAX_DELAY : d;
    }
}
