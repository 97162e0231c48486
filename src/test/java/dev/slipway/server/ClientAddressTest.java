package dev.slipway.server;

import dev.slipway.accounts.Tier;
import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.core.Json;
import dev.slipway.isolation.IsolationMode;
import dev.slipway.router.Target;
import dev.slipway.runtime.Instance;
import dev.slipway.runtime.TestApps;
import dev.slipway.store.Dialect;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.RecordingLog;
import dev.slipway.testing.TestServer;
import dev.slipway.testing.TestStore;
import dev.slipway.tls.TestCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a real app (the node test app, whose /headers answers the fields it got) learns of its client through
 * each path of the apps listener: the relay, Jetty behind it (HTTP/1.0 is Jetty's), and HTTPS. A client's own
 * X-Forwarded-*, X-Real-IP, Forwarded and Via are claims and never reach the app; only 127.0.0.9, the proxy the
 * operator names in SLIPWAY_TRUSTED_PROXIES, is believed, as nginx's real_ip module believes one.
 */
@EndToEnd
class ClientAddressTest {
    static final String HOST = "shop.example";
    static final String PROXY = "127.0.0.9";
    static final int PER_CLIENT = 4;
    static final String FORGED = "X-Forwarded-For: 6.6.6.6\r\nX-Real-IP: 6.6.6.6\r\nForwarded: for=6.6.6.6;proto=https\r\n"
            + "Via: 1.1 evil-proxy\r\nX-Forwarded-Proto: https\r\nX-Forwarded-Host: bank.example\r\nX-Forwarded-Port: 443\r\n";
    static Path dir;
    static TestCertificates certificates;
    static TestServer server;
    static Instance app;

    enum Way { RELAY, JETTY, HTTPS }

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("client-address-");
        certificates = TestCertificates.wildcardLocalhost(dir);
        Map<String, String> env = new HashMap<>(System.getenv());
        env.put("SLIPWAY_TRUSTED_PROXIES", PROXY + "/32");
        env.put("SLIPWAY_MAX_CONNECTIONS_PER_CLIENT", Integer.toString(PER_CLIENT));
        server = TestServer.start(Dialect.H2, c -> c.environment(env).isolation(IsolationMode.NONE).appsHttpsPort(0)
                .appsTlsCertificate(certificates.cert(), certificates.key()));
        app = server.startApp(TestApps.spec("address", Map.of()), new RecordingLog());
        server.slipway().engine().routes().setProduction("shop", new Target.Upstream(app.port()));
        server.slipway().engine().routes().setDomain(HOST, "shop"); // not under the wildcard: plain HTTP is served
    }

    @AfterAll
    static void stop() {
        if (server != null) server.close();
        TestStore.deleteTree(dir);
    }

    static Socket open(Way path, String from) throws Exception {
        if (path == Way.HTTPS) {
            var s = certificates.connect(server.slipway().appsHttpsPort(), "app.localhost", InetAddress.getByName(from));
            s.startHandshake();
            return s;
        }
        Socket s = new Socket();
        s.bind(new InetSocketAddress(InetAddress.getByName(from), 0));
        s.connect(new InetSocketAddress("127.0.0.1", server.slipway().appsPort()), 5_000);
        s.setSoTimeout(15_000);
        return s;
    }

    /** The fields the app got for a GET /headers with {@code extra} fields, sent from {@code from} along {@code path}. */
    static JsonNode appSaw(Way path, String from, String extra) throws Exception {
        String version = path == Way.JETTY ? "HTTP/1.0" : "HTTP/1.1"; // the relay leaves HTTP/1.0 to Jetty
        try (Socket s = open(path, from)) {
            s.getOutputStream().write(("GET /headers " + version + "\r\nHost: " + HOST + "\r\n" + extra + "Connection: close\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
            String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(answer.substring(0, answer.indexOf('\r'))).matches("HTTP/1\\.[01] 200 OK");
            return Json.MAPPER.readTree(answer.substring(answer.indexOf("\r\n\r\n") + 4));
        }
    }

    static String scheme(Way path) {
        return path == Way.HTTPS ? "https" : "http";
    }

    static int port(Way path) {
        return path == Way.HTTPS ? server.slipway().appsHttpsPort() : server.slipway().appsPort();
    }

    @ParameterizedTest
    @EnumSource(Way.class)
    void whatAClientClaimsOfItsAddressNeverReachesTheApp(Way path) throws Exception {
        JsonNode h = appSaw(path, "127.0.0.2", FORGED);
        assertThat(h.get("x-forwarded-for").asText()).isEqualTo("127.0.0.2");
        assertThat(h.get("x-real-ip").asText()).isEqualTo("127.0.0.2");
        assertThat(h.get("x-forwarded-proto").asText()).isEqualTo(scheme(path));
        assertThat(h.get("x-forwarded-host").asText()).isEqualTo(HOST);
        assertThat(h.get("x-forwarded-port").asText()).isEqualTo(Integer.toString(port(path)));
        assertThat(h.get("forwarded").asText())
                .isEqualTo("by=\"127.0.0.1\";for=\"127.0.0.2\";host=\"" + HOST + "\";proto=" + scheme(path));
        assertThat(h.get("via").asText()).matches("1\\.[01] [^,]+").doesNotContain("evil");
        assertThat(h.toString()).doesNotContain("6.6.6.6").doesNotContain("bank.example");
    }

    @ParameterizedTest
    @EnumSource(Way.class)
    void aTrustedProxyNamesTheClientAndTheListenerAddsItself(Way path) throws Exception {
        // the proxy appended its client (203.0.113.7) to what that client claimed (6.6.6.6)
        JsonNode h = appSaw(path, PROXY, "X-Forwarded-For: 6.6.6.6, 203.0.113.7\r\nX-Forwarded-Proto: https\r\n"
                + "X-Forwarded-Host: shop.example.com\r\nForwarded: for=203.0.113.7;proto=https\r\nVia: 1.1 edge-proxy\r\n");
        assertThat(h.get("x-forwarded-for").asText()).isEqualTo("6.6.6.6, 203.0.113.7, " + PROXY);
        assertThat(h.get("x-real-ip").asText()).as("the last address no trusted proxy is").isEqualTo("203.0.113.7");
        assertThat(h.get("x-forwarded-proto").asText()).isEqualTo("https");
        assertThat(h.get("x-forwarded-host").asText()).isEqualTo("shop.example.com");
        assertThat(h.get("forwarded").asText()).isEqualTo("for=203.0.113.7;proto=https, by=\"127.0.0.1\";for=\"" + PROXY
                + "\";host=\"" + HOST + "\";proto=" + scheme(path));
        assertThat(h.get("via").asText()).startsWith("1.1 edge-proxy, 1.");
        // without fields of its own, the proxy is the client
        JsonNode bare = appSaw(path, PROXY, "");
        assertThat(bare.get("x-forwarded-for").asText()).isEqualTo(PROXY);
        assertThat(bare.get("x-real-ip").asText()).isEqualTo(PROXY);
        assertThat(bare.get("x-forwarded-proto").asText()).isEqualTo(scheme(path));
    }

    @Test
    void aTrustedProxyIsNotHeldToOneClientsShareOfConnections() throws Exception {
        List<Socket> held = new ArrayList<>();
        try {
            for (int i = 0; i < PER_CLIENT * 2; i++) {
                Socket s = open(Way.RELAY, PROXY);
                held.add(s);
                s.getOutputStream().write(("GET / HTTP/1.1\r\nHost: " + HOST + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                s.getOutputStream().flush();
                assertThat(statusLine(s)).as("connection %d from the proxy", i + 1).isEqualTo("HTTP/1.1 200 OK");
            }
        } finally {
            for (Socket s : held) s.close();
        }
    }

    @Test
    void theApiCountsAnonymousClientsByTheAddressATrustedProxyNamesAndNobodyElses() throws Exception {
        int quota = Tier.FREE.requestsPerMinute();
        // behind the trusted proxy, each client it names has a quota of its own
        for (int i = 0; i < quota; i++) assertThat(apiStatus(PROXY, "203.0.113.21")).as("request %d of the first client", i + 1).isEqualTo(200);
        assertThat(apiStatus(PROXY, "203.0.113.21")).as("one more of the first client").isEqualTo(429);
        assertThat(apiStatus(PROXY, "203.0.113.22")).as("another client of the same proxy").isEqualTo(200);
        // a peer that is no trusted proxy is counted as itself, whatever it claims to forward
        String peer = "127.0.0.10";
        for (int i = 0; i < quota; i++) assertThat(apiStatus(peer, "198.51.100." + i)).as("request %d of the peer", i + 1).isEqualTo(200);
        assertThat(apiStatus(peer, "198.51.100.200")).as("the peer, claiming yet another client").isEqualTo(429);
    }

    /** The status of an anonymous GET of the API's public document, sent from {@code from} with an X-Forwarded-For. */
    static int apiStatus(String from, String forwardedFor) throws Exception {
        try (Socket s = new Socket()) {
            s.bind(new InetSocketAddress(InetAddress.getByName(from), 0));
            s.connect(new InetSocketAddress("127.0.0.1", server.slipway().apiPort()), 5_000);
            s.setSoTimeout(15_000);
            s.getOutputStream().write(("GET /v1/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-For: " + forwardedFor
                    + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
            String line = statusLine(s);
            return Integer.parseInt(line.split(" ")[1]);
        }
    }

    static String statusLine(Socket s) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (int c = s.getInputStream().read(); c >= 0 && c != '\r'; c = s.getInputStream().read()) sb.append((char) c);
        return sb.toString();
    }
}
