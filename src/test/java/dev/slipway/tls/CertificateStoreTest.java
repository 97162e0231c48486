package dev.slipway.tls;

import dev.slipway.api.AppUrls;
import dev.slipway.logs.LogStore;
import dev.slipway.secrets.SecretBox;
import dev.slipway.testing.DatabasePerStore;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.MutableClock;
import dev.slipway.webhooks.DeliveryStore;
import dev.slipway.webhooks.EndpointStore;
import dev.slipway.webhooks.Outbox;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The certificate rows every server on a store shares: exactly one server claims a due domain's order (even when
 * eight race for it), nothing is due while a certificate is outside its renewal window or a failure is waited out,
 * an abandoned claim expires, and keys are sealed.
 */
@EachStore
class CertificateStoreTest {
    @RegisterExtension
    static final DatabasePerStore db = DatabasePerStore.open(10);

    private final MutableClock clock = new MutableClock();
    private final LogStore logs = new LogStore(db.jdbi(), clock);
    private final CertificateStore store = new CertificateStore(db.jdbi(), SecretBox.fromBase64(db.store().secretKey()), clock,
            new Outbox(new EndpointStore(db.jdbi(), clock), new DeliveryStore(db.jdbi(), clock), logs, clock,
                    new AppUrls("localhost", 8081, null, "127.0.0.1", 8080), () -> {}));

    @AfterEach
    void clean() {
        logs.close();
        db.jdbi().useHandle(h -> h.execute("DELETE FROM certificates"));
    }

    @Test
    void exactlyOneOfManyServersClaimsADueDomain() throws Exception {
        String domain = "race.example.test";
        store.ensure(List.of(domain, "RACE.example.test"));
        Instant now = clock.instant();
        assertThat(store.due(List.of(domain), now, now.plus(Duration.ofDays(30)))).containsExactly(domain);
        var pool = Executors.newFixedThreadPool(8);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Boolean>> claims = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            String node = "node-" + i;
            Callable<Boolean> claim = () -> {
                go.await();
                return store.claim(domain, node, now, now.plus(Duration.ofDays(30)));
            };
            claims.add(pool.submit(claim));
        }
        go.countDown();
        int won = 0;
        for (Future<Boolean> f : claims) if (f.get()) won++;
        pool.shutdown();
        assertThat(won).isEqualTo(1);
        assertThat(store.due(List.of(domain), now, now.plus(Duration.ofDays(30)))).isEmpty(); // held

        // a claim whose server died expires, and the domain is claimable again
        clock.advance(CertificateStore.CLAIM.plusSeconds(1));
        Instant later = clock.instant();
        assertThat(store.claim(domain, "node-x", later, later.plus(Duration.ofDays(30)))).isTrue();
    }

    @Test
    void nothingIsDueOutsideTheRenewalWindowOrWhileAFailureIsWaitedOut() {
        String domain = "cycle.example.test";
        store.ensure(Set.of(domain));
        Instant now = clock.instant();
        assertThat(store.claim(domain, "a", now, now.plus(Duration.ofDays(30)))).isTrue();
        store.failed(domain, "validation of cycle.example.test failed: connection refused", now, now.plus(Duration.ofMinutes(2)));
        assertThat(store.due(List.of(domain), now, now.plus(Duration.ofDays(30)))).isEmpty();
        assertThat(store.claim(domain, "b", now, now.plus(Duration.ofDays(30)))).isFalse();
        assertThat(store.view(domain).orElseThrow()).satisfies(v -> {
            assertThat(v.status()).isEqualTo("failed");
            assertThat(v.lastError()).contains("connection refused");
            assertThat(v.nextAttemptAt()).isEqualTo(now.plus(Duration.ofMinutes(2)));
        });

        clock.advance(Duration.ofMinutes(2));
        Instant retry = clock.instant();
        assertThat(store.claim(domain, "b", retry, retry.plus(Duration.ofDays(30)))).isTrue();
        Instant expires = retry.plus(Duration.ofDays(90));
        store.issued(domain, "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
                "-----BEGIN PRIVATE KEY-----\nsecret\n-----END PRIVATE KEY-----\n", "abc", expires);
        assertThat(store.view(domain).orElseThrow().lastError()).isNull();
        assertThat(store.due(List.of(domain), retry, retry.plus(Duration.ofDays(30)))).isEmpty();
        assertThat(store.claim(domain, "c", retry, retry.plus(Duration.ofDays(30)))).isFalse();
        // 30 days before expiry it is due again
        Instant window = expires.minus(Duration.ofDays(30));
        assertThat(store.due(List.of(domain), window, window.plus(Duration.ofDays(30)))).containsExactly(domain);

        // sealed at rest, readable with the key
        String sealed = db.jdbi().withHandle(h -> h.createQuery("SELECT key_enc FROM certificates WHERE domain = :d")
                .bind("d", domain).mapTo(String.class).one());
        assertThat(sealed).startsWith("v1:").doesNotContain("secret");
        assertThat(store.servable()).singleElement().satisfies(c -> assertThat(c.keyPem()).contains("secret"));
    }

    @Test
    void backoffDoublesUpToItsCap() {
        Duration min = Duration.ofMinutes(1);
        Duration max = Duration.ofHours(1);
        assertThat(CertificateManager.backoff(1, min, max)).isEqualTo(Duration.ofMinutes(1));
        assertThat(CertificateManager.backoff(2, min, max)).isEqualTo(Duration.ofMinutes(2));
        assertThat(CertificateManager.backoff(4, min, max)).isEqualTo(Duration.ofMinutes(8));
        assertThat(CertificateManager.backoff(7, min, max)).isEqualTo(max);
        assertThat(CertificateManager.backoff(500, min, max)).isEqualTo(max);
    }

    @Test
    void aChallengeIsAnsweredOnlyForItsOwnHost() {
        store.putChallenge("tok", "mine.example.test", "tok.key");
        assertThat(store.challenge("tok", "MINE.example.test")).hasValue("tok.key");
        assertThat(store.challenge("tok", "theirs.example.test")).isEmpty();
        assertThat(store.challenge("tok' OR '1'='1", "mine.example.test")).isEmpty();
        store.removeChallenge("tok");
        assertThat(store.challenge("tok", "mine.example.test")).isEmpty();
    }
}
