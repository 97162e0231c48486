package dev.slipway.router;

import dev.slipway.testing.Await;
import dev.slipway.testing.Http;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The apps listener serves plain requests on its selector threads (AppsHandler is non-blocking), so
 * whatever may block must run elsewhere. A hostile tenant whose app accepts WebSocket upgrades and never
 * answers the handshake holds one of the router's calls for the connect timeout: more of those than
 * the listener has selector threads must still leave every other tenant served meanwhile.
 */
class StalledTenantTest {
    static final int STALLED_UPGRADES = 8; // Jetty's connectors have at most 4 selectors by default
    static Server app;
    static ServerSocket blackHole;
    static final List<Socket> heldByTheBlackHole = new CopyOnWriteArrayList<>();
    static Thread acceptor;
    static RouteTable routes;
    static AppsListener listener;
    static AppsClient client;

    @BeforeAll
    static void start() throws Exception {
        app = new Server();
        ServerConnector connector = new ServerConnector(app);
        connector.setHost("127.0.0.1");
        app.addConnector(connector);
        app.setHandler(new Handler.Abstract.NonBlocking() {
            @Override
            public boolean handle(Request request, Response response,
                                  Callback callback) {
                Content.Sink.write(response, true, "fixture:other-tenant", callback);
                return true;
            }
        });
        app.start();
        // the hostile app: accepts every connection, reads nothing, answers nothing
        blackHole = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        acceptor = Thread.ofPlatform().daemon().start(() -> {
            while (!blackHole.isClosed()) {
                try {
                    heldByTheBlackHole.add(blackHole.accept());
                } catch (IOException e) {
                    return;
                }
            }
        });
        routes = new RouteTable("localhost");
        routes.setProduction("other", new Target.Upstream(connector.getLocalPort()));
        routes.setProduction("stall", new Target.Upstream(blackHole.getLocalPort()));
        listener = AppsListener.start("127.0.0.1", 0, routes, port -> false);
        client = new AppsClient(listener.port());
    }

    @AfterAll
    static void stop() throws Exception {
        listener.close();
        app.stop();
        blackHole.close();
        for (Socket s : heldByTheBlackHole) s.close();
    }

    @Test
    void upgradesHeldByAStalledAppDoNotStallOtherTenants() throws Exception {
        List<Socket> upgrades = new CopyOnWriteArrayList<>();
        try {
            for (int i = 0; i < STALLED_UPGRADES; i++) {
                Socket s = new Socket(InetAddress.getLoopbackAddress(), listener.port());
                s.getOutputStream().write(("GET /ws HTTP/1.1\r\nHost: stall.localhost\r\nUpgrade: websocket\r\n"
                        + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                        + "Sec-WebSocket-Version: 13\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
                upgrades.add(s);
            }
            // every upgrade is now inside the router's handshake with the hostile app, waiting for its answer
            Await.until(Duration.ofSeconds(10), "the stalled app holds every upgrade",
                    () -> heldByTheBlackHole.size() >= STALLED_UPGRADES);

            for (int i = 0; i < 20; i++) {
                Http.Response r = client.get("other.localhost", "/");
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.body()).isEqualTo("fixture:other-tenant");
            }
            // ... and all that while, no upgrade got an answer: they were all still held
            for (Socket s : upgrades) assertThat(answered(s)).as("an upgrade was answered before the others were served").isFalse();
        } finally {
            for (Socket s : upgrades) s.close();
        }
    }

    @Test
    void anUpgradeTheAppNeverAnswersEndsWithTheTimeoutPage() throws Exception {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), listener.port())) {
            s.getOutputStream().write(("GET /ws HTTP/1.1\r\nHost: stall.localhost\r\nUpgrade: websocket\r\n"
                    + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                    + "Sec-WebSocket-Version: 13\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            s.setSoTimeout((int) WebSocketTunnel.CONNECT_TIMEOUT_MS * 4);
            String status = new String(s.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
            assertThat(status).isEqualTo("HTTP/1.1 504");
        }
    }

    @Test
    void aListenerStoppedWhileAStalledAppHoldsAnUpgradeStopsAndCutsIt() throws Exception {
        AppsListener own = AppsListener.start("127.0.0.1", 0, routes, port -> false);
        int held = heldByTheBlackHole.size();
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), own.port())) {
            s.getOutputStream().write(("GET /ws HTTP/1.1\r\nHost: stall.localhost\r\nUpgrade: websocket\r\n"
                    + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                    + "Sec-WebSocket-Version: 13\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            Await.until(Duration.ofSeconds(10), "the stalled app holds the upgrade", () -> heldByTheBlackHole.size() > held);
            own.close(); // a stop does not wait past its timeout for a tenant that never answers, nor fails for it
            s.setSoTimeout((int) WebSocketTunnel.CONNECT_TIMEOUT_MS * 4);
            assertThat(s.getInputStream().readAllBytes()).as("what the stopped listener still sent").isEmpty();
        }
        assertThatThrownBy(() -> new Socket(InetAddress.getLoopbackAddress(), own.port()).close())
                .as("the stopped listener's port").isInstanceOf(IOException.class);
    }

    /** Whether the router wrote anything on the socket yet (non-blocking peek). */
    private static boolean answered(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        if (in.available() > 0) return true;
        s.setSoTimeout(1);
        try {
            in.read(); // a byte, or -1 (the router closed it): an answer either way
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        }
    }
}
