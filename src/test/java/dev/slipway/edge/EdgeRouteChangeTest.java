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
import java.util.concurrent.CompletableFuture;

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
