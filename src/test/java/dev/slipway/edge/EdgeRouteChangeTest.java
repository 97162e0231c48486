package dev.slipway.edge;

import com.sun.net.httpserver.HttpServer;
import dev.slipway.router.RecentRequests;
import dev.slipway.router.RouteTable;
import dev.slipway.router.Target;
import dev.slipway.router.Waker;
import dev.slipway.testing.Apps;
import dev.slipway.testing.EndToEnd;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A route change returns once the edge process serves it: the request sent right after it reaches the new target,
 * every time (a deployment goes live after its route changed, and a client that saw it live is answered by it).
 */
@EndToEnd
class EdgeRouteChangeTest {
    @Test
    void theRequestRightAfterARouteChangeReachesTheNewTarget(@TempDir Path dataDir) throws IOException {
        HttpServer blue = answering("blue");
        HttpServer green = answering("green");
        RouteTable routes = new RouteTable("apps.test");
        try (EdgeLink edge = EdgeLink.open(new EdgeLink.Spec(dataDir, "127.0.0.1", 0, "apps.test", null))) {
            edge.serve(routes, port -> true, port -> false, host -> CompletableFuture.completedFuture(new Waker.Wake.NoApp()),
                    new RecentRequests(Clock.systemUTC()), null);
            edge.publish();
            String url = "http://web.apps.test:" + edge.port() + "/";
            List<String> wrong = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                HttpServer to = i % 2 == 0 ? blue : green;
                routes.setProduction("web", new Target.Upstream("127.0.0.1", to.getAddress().getPort()));
                String got = Apps.get(url).body();
                String want = i % 2 == 0 ? "blue" : "green";
                if (!got.equals(want)) wrong.add("change " + i + ": " + got);
            }
            assertThat(wrong).as("requests that reached the route before the change").isEmpty();
        } finally {
            blue.stop(0);
            green.stop(0);
        }
    }

    /**
     * On a table of ten thousand projects, the edge serves the whole table once {@code publish} returns (the table is
     * large enough that a send left to the sync loop arrives after the first request), and each kind of change reaches
     * it (it is sent what changed, after the first table): a switch, a new deployment, a project removed or renamed, a
     * custom domain set and taken away.
     */
    @Test
    void everyKindOfChangeReachesTheEdgeOfALargeInstall(@TempDir Path dataDir) throws IOException {
        HttpServer blue = answering("blue");
        HttpServer green = answering("green");
        Target toBlue = new Target.Upstream("127.0.0.1", blue.getAddress().getPort());
        Target toGreen = new Target.Upstream("127.0.0.1", green.getAddress().getPort());
        RouteTable routes = new RouteTable("apps.test");
        for (int p = 0; p < 10_000; p++) routes.setLive("p" + p, "d" + p, toBlue, toBlue);
        try (EdgeLink edge = EdgeLink.open(new EdgeLink.Spec(dataDir, "127.0.0.1", 0, "apps.test", null))) {
            edge.serve(routes, port -> true, port -> false, host -> CompletableFuture.completedFuture(new Waker.Wake.NoApp()),
                    new RecentRequests(Clock.systemUTC()), null);
            edge.publish();
            String at = ".apps.test:" + edge.port() + "/";
            assertThat(Apps.get("http://p9999" + at).body()).as("the first table").isEqualTo("blue");

            routes.setProduction("p1", toGreen);
            assertThat(Apps.get("http://p1" + at).body()).isEqualTo("green");
            routes.setDeployment("p2", "e2", toGreen);
            assertThat(Apps.get("http://p2-e2" + at).body()).isEqualTo("green");
            routes.removeDeployment("p3", "d3");
            assertThat(Apps.get("http://p3-d3" + at).status()).isEqualTo(404);
            assertThat(Apps.get("http://p3" + at).body()).isEqualTo("blue");
            routes.removeProject("p4");
            assertThat(Apps.get("http://p4" + at).status()).isEqualTo(404);
            assertThat(Apps.get("http://p4-d4" + at).status()).isEqualTo(404);
            routes.renameProject("p5", "shop");
            assertThat(Apps.get("http://shop" + at).body()).isEqualTo("blue");
            assertThat(Apps.get("http://shop-d5" + at).body()).isEqualTo("blue");
            assertThat(Apps.get("http://p5" + at).status()).isEqualTo(404);
            routes.setProduction("shop", toGreen);
            routes.setDomain("www.shop.example", "shop");
            assertThat(Apps.get("http://www.shop.example:" + edge.port() + "/").body()).isEqualTo("green");
            routes.syncDomain("shop", null);
            assertThat(Apps.get("http://www.shop.example:" + edge.port() + "/").status()).isEqualTo(404);
            routes.replaceTarget(toBlue, toGreen);
            assertThat(Apps.get("http://p999" + at).body()).as("a target replaced everywhere").isEqualTo("green");
            assertThat(Apps.get("http://p0-d0" + at).body()).isEqualTo("green");
        } finally {
            blue.stop(0);
            green.stop(0);
        }
    }

    /**
     * A change of serving that the runtime tells (an app starts stopping, answers again) reaches the edge when the call
     * returns, on an install of a thousand other routes; the route changes in between look only at their own ports and
     * leave it as told.
     */
    @Test
    void aChangeOfServingTheRuntimeTellsReachesTheEdge(@TempDir Path dataDir) throws IOException {
        HttpServer blue = answering("blue");
        int bluePort = blue.getAddress().getPort();
        Set<Integer> serving = ConcurrentHashMap.newKeySet();
        serving.add(bluePort);
        AtomicInteger wakes = new AtomicInteger();
        RouteTable routes = new RouteTable("apps.test");
        for (int p = 0; p < 1000; p++) routes.setProduction("p" + p, new Target.Upstream(20_000 + p));
        routes.setProduction("web", new Target.Upstream(bluePort));
        try (EdgeLink edge = EdgeLink.open(new EdgeLink.Spec(dataDir, "127.0.0.1", 0, "apps.test", null))) {
            edge.serve(routes, serving::contains, port -> false, host -> {
                wakes.incrementAndGet();
                return CompletableFuture.completedFuture(new Waker.Wake.NoApp());
            }, new RecentRequests(Clock.systemUTC()), null);
            edge.publish();
            String url = "http://web.apps.test:" + edge.port() + "/";
            assertThat(Apps.get(url).body()).isEqualTo("blue");
            for (int i = 0; i < 10; i++) {
                serving.remove(bluePort);
                edge.servingChanged();
                routes.setProduction("p" + i, new Target.Upstream(21_000 + i));
                int before = wakes.get();
                assertThat(Apps.get(url).status()).as("round %d: a stopping app's route is stale", i).isEqualTo(502);
                assertThat(wakes.get()).as("round %d: the edge asked the server", i).isEqualTo(before + 1);
                serving.add(bluePort);
                edge.servingChanged();
                routes.setProduction("p" + i, new Target.Upstream(20_000 + i));
                assertThat(Apps.get(url).body()).as("round %d: it answers again", i).isEqualTo("blue");
            }
        } finally {
            blue.stop(0);
        }
    }

    private static HttpServer answering(String body) throws IOException {
        HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        s.createContext("/", x -> {
            x.sendResponseHeaders(200, bytes.length);
            x.getResponseBody().write(bytes);
            x.close();
        });
        s.start();
        return s;
    }
}
