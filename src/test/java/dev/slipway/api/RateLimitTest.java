package dev.slipway.api;

import dev.slipway.server.Slipway;
import dev.slipway.accounts.Tier;
import dev.slipway.store.Dialect;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.ServerPerStore;
import dev.slipway.testing.TestServer;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

@EachStore
@EndToEnd
class RateLimitTest {
    final Dialect kind = server.kind();

    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.start();

    private static List<Http.Response> parallel(List<Http> clients, int requests) throws Exception {
        try (var pool = Executors.newFixedThreadPool(50)) {
            List<Callable<Http.Response>> calls = new ArrayList<>();
            for (int i = 0; i < requests; i++) {
                Http c = clients.get(i % clients.size());
                calls.add(() -> c.get("/v1/projects"));
            }
            List<Http.Response> out = new ArrayList<>();
            for (Future<Http.Response> f : pool.invokeAll(calls)) out.add(f.get());
            return out;
        }
    }

    @Test
    void exactlyThirtyOfAHundredParallelRequestsPassOnAFreshFreeAccount() throws Exception {
        var t = server.tenant(Tier.FREE);
        List<Http.Response> responses = parallel(List.of(t.http()), 100);
        assertThat(responses.stream().filter(r -> r.status() == 200).count()).isEqualTo(30);
        List<Http.Response> limited = responses.stream().filter(r -> r.status() == 429).toList();
        assertThat(limited).hasSize(70);
        long now = Instant.now().getEpochSecond();
        for (Http.Response r : limited) {
            assertThat(r.json().at("/error/code").asText()).isEqualTo("rate_limited");
            assertThat(r.header("X-RateLimit-Limit")).isEqualTo("30");
            assertThat(r.header("X-RateLimit-Remaining")).isEqualTo("0");
            long retryAfter = Long.parseLong(r.header("Retry-After"));
            assertThat(retryAfter).isBetween(1L, 60L);
            long reset = Long.parseLong(r.header("X-RateLimit-Reset"));
            assertThat(reset).isBetween(now, now + 61);
        }
        // the remaining counts seen by the 30 successes are exactly 29..0, each once
        assertThat(responses.stream().filter(r -> r.status() == 200).map(r -> Integer.parseInt(r.header("X-RateLimit-Remaining"))))
                .containsExactlyInAnyOrderElementsOf(IntStream.range(0, 30).boxed().toList());
    }

    @Test
    void tiersAndOverridesSetTheLimit() {
        assertThat(server.tenant(Tier.PRO).http().get("/v1/projects").header("X-RateLimit-Limit")).isEqualTo("120");
        assertThat(server.tenant(Tier.TEAM).http().get("/v1/projects").header("X-RateLimit-Limit")).isEqualTo("600");
        var custom = server.tenant(Tier.FREE, 5000).http().get("/v1/projects");
        assertThat(custom.header("X-RateLimit-Limit")).isEqualTo("5000");
        assertThat(custom.header("X-RateLimit-Remaining")).isEqualTo("4999");
    }

    @Test
    void accountsHaveSeparateQuotas() throws Exception {
        var a = server.tenant(Tier.FREE, 3);
        var b = server.tenant(Tier.FREE, 3);
        for (int i = 0; i < 3; i++) assertThat(a.http().get("/v1/projects").status()).isEqualTo(200);
        assertThat(a.http().get("/v1/projects").status()).isEqualTo(429);
        assertThat(b.http().get("/v1/projects").status()).isEqualTo(200);
    }

    @Test
    void unauthenticatedRequestsAreLimitedPerAddressAtTheFreeTier() throws Exception {
        // a fresh server, so the loopback address has its whole quota
        try (TestServer fresh = TestServer.start(kind)) {
            List<Http.Response> responses = parallel(List.of(fresh.anonymous()), 40);
            assertThat(responses.stream().filter(r -> r.status() == 401).count()).isEqualTo(30);
            assertThat(responses.stream().filter(r -> r.status() == 429).count()).isEqualTo(10);
            assertThat(responses).allSatisfy(r -> assertThat(r.header("X-RateLimit-Limit")).isEqualTo("30"));
        }
    }

    @Test
    void twoServersOnOneStoreShareTheLimitOnPostgres() throws Exception {
        Assumptions.assumeTrue(kind == Dialect.POSTGRES,
                "the embedded store is one process; sharing across servers is a PostgreSQL feature");
        try (Slipway peer = server.startPeer()) {
            var t = server.tenant(Tier.FREE);
            Http viaPeer = new Http("http://127.0.0.1:" + peer.apiPort(), t.key());
            List<Http.Response> responses = parallel(List.of(t.http(), viaPeer), 100);
            assertThat(responses.stream().filter(r -> r.status() == 200).count()).isEqualTo(30);
        }
    }
}
