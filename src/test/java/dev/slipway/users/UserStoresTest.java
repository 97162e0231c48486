package dev.slipway.users;

import dev.slipway.accounts.Account;
import dev.slipway.accounts.AccountStore;
import dev.slipway.accounts.Tier;
import dev.slipway.store.Dialect;
import dev.slipway.testing.DatabasePerStore;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.MutableClock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Users, sessions and the sign-in throttle against a real store (H2 and PostgreSQL), with a clock moved by hand. */
@EachStore
class UserStoresTest {
    final Dialect kind = db.kind();

    @RegisterExtension
    static final DatabasePerStore db = DatabasePerStore.open(4);
    static MutableClock clock;
    static UserStore users;
    static SessionStore sessions;
    static SignInThrottle throttle;
    Account account;

    @EachStore.Before
    static void open() {
        clock = new MutableClock();
        users = new UserStore(db.jdbi(), clock);
        sessions = new SessionStore(db.jdbi(), clock, users);
        throttle = new SignInThrottle(db.jdbi(), clock);
    }

    @BeforeEach
    void newAccount() {
        account = new AccountStore(db.jdbi(), clock).create("a-" + UUID.randomUUID().toString().substring(0, 8), Tier.FREE, null);
    }

    private static String email() {
        return "u" + UUID.randomUUID().toString().substring(0, 8) + "@example.com";
    }

    @Test
    void createsUsersWithUniqueCaseInsensitiveEmailsAndArgon2idHashes() {
        String email = email();
        User user = users.create(account.id(), "  " + email.toUpperCase() + " ", "correct horse battery");
        assertThat(user.email()).isEqualTo(email);
        assertThat(user.passwordHash()).startsWith("$argon2id$v=19$m=19456,t=2,p=1$").doesNotContain("correct horse");
        String stored = db.jdbi().withHandle(h -> h.createQuery("SELECT password_hash FROM users WHERE id = :id")
                .bind("id", user.id()).mapTo(String.class).one());
        assertThat(stored).isEqualTo(user.passwordHash());

        assertThatThrownBy(() -> users.create(account.id(), email.toUpperCase(), "another long password"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("already exists");
        assertThatThrownBy(() -> users.create(account.id(), "not-an-email", "another long password"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not an email");
        assertThatThrownBy(() -> users.create(account.id(), email(), "short"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 12 characters");

        assertThat(users.authenticate(email.toUpperCase(), "correct horse battery")).contains(user);
        assertThat(users.authenticate(email, "correct horse batterY")).isEmpty();
        assertThat(users.authenticate(email(), "correct horse battery")).isEmpty();
        assertThat(users.list(account.id())).containsExactly(user);
    }

    @Test
    void sessionsAreStoredAsHashesAndExpire() {
        User user = users.create(account.id(), email(), "correct horse battery");
        SessionStore.Issued issued = sessions.create(user);
        assertThat(issued.token()).hasSizeGreaterThanOrEqualTo(43);
        assertThat(issued.csrfToken()).isNotEqualTo(issued.token());
        String row = db.jdbi().withHandle(h -> h.createQuery("SELECT token_hash FROM user_sessions WHERE user_id = :u")
                .bind("u", user.id()).mapTo(String.class).one());
        assertThat(row).isEqualTo(SessionStore.hash(issued.token())).isNotEqualTo(issued.token());

        var found = sessions.find(issued.token()).orElseThrow();
        assertThat(found.user()).isEqualTo(user);
        assertThat(found.csrfToken()).isEqualTo(issued.csrfToken());
        assertThat(sessions.find(issued.token() + "x")).isEmpty();
        assertThat(sessions.find(null)).isEmpty();

        clock.advance(SessionStore.LIFETIME.minusSeconds(1));
        assertThat(sessions.find(issued.token())).isPresent();
        clock.advance(Duration.ofSeconds(1));
        assertThat(sessions.find(issued.token())).isEmpty();
        assertThat(sessions.sweep()).isGreaterThanOrEqualTo(1);

        SessionStore.Issued other = sessions.create(user);
        sessions.delete(other.token());
        assertThat(sessions.find(other.token())).isEmpty();
    }

    @Test
    void repeatedFailuresForOneEmailWaitLongerAndLonger() {
        String email = email();
        String ip = "10.0.0." + (int) (Math.random() * 250);
        for (int i = 0; i < SignInThrottle.FREE_PER_EMAIL; i++) {
            assertThat(throttle.wait(email, ip)).isZero();
            throttle.recordFailure(email, ip);
        }
        assertThat(throttle.wait(email, ip)).isEqualTo(Duration.ofSeconds(2));
        assertThat(throttle.wait(email, "10.9.9.9")).as("the user, from their own address, is not locked out").isZero();
        assertThat(throttle.wait(email(), ip)).as("another email from the address").isZero();
        clock.advance(Duration.ofSeconds(2));
        assertThat(throttle.wait(email, ip)).isZero();
        throttle.recordFailure(email, ip);
        assertThat(throttle.wait(email, ip)).isEqualTo(Duration.ofSeconds(4));
        clock.advance(Duration.ofSeconds(4));
        throttle.recordFailure(email, ip);
        assertThat(throttle.wait(email, ip)).isEqualTo(Duration.ofSeconds(8));

        throttle.clear(email, ip);
        assertThat(throttle.wait(email, ip)).isZero();
        assertThat(SignInThrottle.delay(30)).isEqualTo(SignInThrottle.MAX_DELAY);
    }

    @Test
    void oneAddressTryingManyEmailsIsSlowedDownTooAndOldFailuresAreForgotten() {
        String ip = "10.1.1." + (int) (Math.random() * 250);
        for (int i = 0; i < SignInThrottle.FREE_PER_ADDRESS; i++) throttle.recordFailure(email(), ip);
        assertThat(throttle.wait(email(), ip)).isEqualTo(Duration.ofSeconds(2));
        assertThat(throttle.wait(null, ip)).isEqualTo(Duration.ofSeconds(2));
        clock.advance(SignInThrottle.WINDOW.plusSeconds(1));
        assertThat(throttle.wait(email(), ip)).isZero();
        assertThat(throttle.sweep()).isGreaterThanOrEqualTo(SignInThrottle.FREE_PER_ADDRESS * 2);
    }

    /**
     * One IPv6 client holds a whole /64 (its provider routes the prefix to it), so rotating through it must not
     * reset the count: addresses of one /64 share it, in any spelling; another /64 has its own.
     */
    @Test
    void theAddressesOfOneIpv6Slash64ShareTheirFailuresAndAnotherSlash64DoesNot() {
        String net = "2001:db8:" + Integer.toHexString(1 + (int) (Math.random() * 0xfffe)) + ":7";
        for (int i = 0; i < SignInThrottle.FREE_PER_ADDRESS; i++) {
            throttle.recordFailure(email(), net + "::" + Integer.toHexString(i + 1));
        }
        assertThat(throttle.wait(email(), net + ":ffff:ffff:ffff:fffe")).as("another address of the /64").isEqualTo(Duration.ofSeconds(2));
        assertThat(throttle.wait(null, net.toUpperCase().replace(":7", ":0007") + ":0:0:0:abcd")).isEqualTo(Duration.ofSeconds(2));
        assertThat(throttle.wait(email(), net.substring(0, net.length() - 1) + "8::1")).as("the next /64").isZero();

        String email = email();
        String other = "2001:db8:" + Integer.toHexString(1 + (int) (Math.random() * 0xfffe)) + ":9";
        for (int i = 0; i < SignInThrottle.FREE_PER_EMAIL; i++) throttle.recordFailure(email, other + "::" + (100 + i));
        assertThat(throttle.wait(email, other + "::1")).as("one email from the /64").isEqualTo(Duration.ofSeconds(2));
        // IPv4 clients keep their own address, in its IPv4-mapped spelling too
        String v4 = "198.51.100." + (1 + (int) (Math.random() * 250));
        for (int i = 0; i < SignInThrottle.FREE_PER_ADDRESS; i++) throttle.recordFailure(email(), v4);
        assertThat(throttle.wait(email(), "::ffff:" + v4)).isEqualTo(Duration.ofSeconds(2));
        assertThat(throttle.wait(email(), v4.substring(0, v4.lastIndexOf('.')) + ".251")).isZero();
    }
}
