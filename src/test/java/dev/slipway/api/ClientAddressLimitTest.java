package dev.slipway.api;

import dev.slipway.net.BoundPort;
import dev.slipway.ratelimit.RateLimiter;
import io.javalin.Javalin;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.ProxyConnectionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The limit of requests without a key (the API's, and the sandbox's, which counts through the same gate) is
 * per client: an IPv6 client by its /64, which it can rotate through. The requests come over loopback with a
 * PROXY protocol line naming the client, as the apps listener's relay sends them to Jetty, so the gate sees
 * the addresses of a real request.
 */
class ClientAddressLimitTest {
    static BoundPort port;
    static Javalin app;

    @BeforeAll
    static void start() {
        port = BoundPort.bind("test API", "127.0.0.1", 0);
        Gate gate = new Gate(null, RateLimiter.inMemory(Clock.systemUTC()), Set.of("/v1/openapi.json"), account -> Optional.empty());
        app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.jetty.addConnector((server, http) -> port.connector(server, new ProxyConnectionFactory("HTTP/1.1"),
                    new HttpConnectionFactory(http)));
            config.routes.before(gate::check);
            config.routes.get("/v1/openapi.json", ctx -> ctx.result("{}"));
        }).start();
    }

    @AfterAll
    static void stop() {
        app.stop();
    }

    /** The X-RateLimit-Remaining of a request from {@code client} ("TCP6 2001:db8::1" or "TCP4 198.51.100.1"). */
    static int remaining(String family, String client) throws IOException {
        String local = family.equals("TCP6") ? "::1" : "127.0.0.1";
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port.port())) {
            OutputStream out = s.getOutputStream();
            out.write(("PROXY " + family + " " + client + " " + local + " 40000 " + port.port() + "\r\n"
                    + "GET /v1/openapi.json HTTP/1.1\r\nHost: api.test\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            String head = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
            assertThat(head).as(client).startsWith("HTTP/1.1 200");
            for (String line : head.split("\r\n")) {
                if (line.regionMatches(true, 0, "X-RateLimit-Remaining:", 0, 22)) return Integer.parseInt(line.substring(22).strip());
            }
            throw new AssertionError("no X-RateLimit-Remaining in " + head);
        }
    }

    @Test
    void theAddressesOfOneIpv6Slash64ShareOneQuotaAndAnotherSlash64HasItsOwn() throws IOException {
        assertThat(remaining("TCP6", "2001:db8:5:6::1")).isEqualTo(29);
        assertThat(remaining("TCP6", "2001:db8:5:6:aaaa:bbbb:cccc:dddd")).as("another address of the /64").isEqualTo(28);
        assertThat(remaining("TCP6", "2001:db8:5:6:0:0:0:2")).isEqualTo(27);
        assertThat(remaining("TCP6", "2001:db8:5:7::1")).as("the next /64").isEqualTo(29);
        assertThat(remaining("TCP4", "198.51.100.7")).isEqualTo(29);
        assertThat(remaining("TCP4", "198.51.100.8")).as("IPv4 clients: one address each").isEqualTo(29);
    }
}
