package dev.slipway.plantstore;

import dev.slipway.accounts.Tier;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.ServerPerStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code /sandbox} is limited by the same limiter and headers as {@code /v1}: per account, and per address without a key. */
@EachStore
@EndToEnd
class PlantStoreRateLimitTest {
    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.start();

    @Test
    void anAccountsSandboxAndV1RequestsShareItsLimit() {
        Http h = server.tenant(Tier.FREE, 5).http();
        for (int i = 1; i <= 3; i++) {
            var r = h.post("/sandbox/plants", "{\"id\": " + i + ", \"name\": \"p" + i + "\"}");
            assertThat(r.status()).as(r.body()).isEqualTo(200);
            assertThat(r.header("X-RateLimit-Limit")).isEqualTo("5");
            assertThat(r.header("X-RateLimit-Remaining")).isEqualTo(Integer.toString(5 - i));
            assertThat(r.header("X-RateLimit-Reset")).matches("\\d+");
        }
        assertThat(h.get("/v1/projects").status()).isEqualTo(200);
        assertThat(h.post("/sandbox/plants", "{\"id\": 4, \"name\": \"p4\"}").status()).isEqualTo(200);
        var limited = h.post("/sandbox/plants", "{\"id\": 5, \"name\": \"p5\"}");
        PlantStoreTest.assertFlatError(limited, 429, "Rate limit of 5 requests per minute exceeded");
        assertThat(limited.header("Retry-After")).matches("\\d+");
        assertThat(limited.header("X-RateLimit-Remaining")).isEqualTo("0");
        assertThat(h.get("/v1/projects").status()).as("and /v1 is spent as well").isEqualTo(429);
    }

    @Test
    void anAccountKeepsAsManyPlantsAsItsTierAllows() {
        var tenant = server.tenant(Tier.FREE, 1_000_000);
        Http h = tenant.http();
        int allowed = Tier.FREE.plants();
        // all but the last through the store, the last through the API
        server.slipway().database().jdbi().useHandle(db -> {
            var batch = db.prepareBatch("INSERT INTO sandbox_plants (account_id, id, name, created_at) VALUES (?, ?, ?, ?)");
            for (int i = 1; i < allowed; i++) batch.add(tenant.account().id(), (long) i, "p" + i, Instant.now());
            batch.execute();
        });
        assertThat(h.post("/sandbox/plants", "{\"id\": " + allowed + ", \"name\": \"last\"}").status()).isEqualTo(200);
        var over = h.post("/sandbox/plants", "{\"id\": " + (allowed + 1) + ", \"name\": \"one too many\"}");
        PlantStoreTest.assertFlatError(over, 429, "the free tier keeps " + allowed + " plants per account");
        assertThat(server.tenant(Tier.FREE).http().post("/sandbox/plants", "{\"id\": 1, \"name\": \"another account\"}").status())
                .isEqualTo(200);
    }

    /** Creates sent at the same time at the edge: exactly as many are kept as the tier has room for. */
    @Test
    void createsSentAtTheSameTimeKeepNoMoreThanTheTiersNumber() throws Exception {
        var tenant = server.tenant(Tier.FREE, 1_000_000);
        int allowed = Tier.FREE.plants();
        int room = 3;
        server.slipway().database().jdbi().useHandle(db -> {
            var batch = db.prepareBatch("INSERT INTO sandbox_plants (account_id, id, name, created_at) VALUES (?, ?, ?, ?)");
            for (int i = 1; i <= allowed - room; i++) batch.add(tenant.account().id(), (long) i, "p" + i, Instant.now());
            batch.execute();
        });
        int senders = 24;
        var start = new CountDownLatch(1);
        List<Future<Integer>> statuses = new ArrayList<>();
        try (var pool = Executors.newFixedThreadPool(senders)) {
            for (int i = 0; i < senders; i++) {
                long id = allowed + 1L + i;
                statuses.add(pool.submit(() -> {
                    start.await();
                    return tenant.http().post("/sandbox/plants", "{\"id\": " + id + ", \"name\": \"racer\"}").status();
                }));
            }
            start.countDown();
        }
        List<Integer> got = new ArrayList<>();
        for (var f : statuses) got.add(f.get());
        assertThat(got).filteredOn(s -> s == 200).as("kept, of " + got).hasSize(room);
        assertThat(got).filteredOn(s -> s == 429).as("refused, of " + got).hasSize(senders - room);
        long kept = server.slipway().database().jdbi().withHandle(db -> db.createQuery(
                "SELECT COUNT(*) FROM sandbox_plants WHERE account_id = :a").bind("a", tenant.account().id()).mapTo(Long.class).one());
        assertThat(kept).isEqualTo(allowed);
    }

    @Test
    void guessedKeysAreCountedPerAddressAndStopAt429() {
        Http guesser = server.anonymous().withKey("sk_live_guess");
        int unauthorized = 0;
        int limitedAt = -1;
        for (int i = 1; i <= Tier.FREE.requestsPerMinute() + 5 && limitedAt < 0; i++) {
            var r = guesser.post("/sandbox/plants", "{\"id\": 1, \"name\": \"x\"}");
            assertThat(r.header("X-RateLimit-Limit")).isEqualTo(Integer.toString(Tier.FREE.requestsPerMinute()));
            if (r.status() == 401) unauthorized++;
            else if (r.status() == 429) limitedAt = i;
            else throw new AssertionError("unexpected " + r.status() + " " + r.body());
        }
        assertThat(limitedAt).as("a guesser is limited").isPositive().isLessThanOrEqualTo(Tier.FREE.requestsPerMinute() + 1);
        assertThat(unauthorized).isEqualTo(limitedAt - 1);
    }
}
