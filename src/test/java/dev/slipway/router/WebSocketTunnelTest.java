package dev.slipway.router;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.server.WebSocketUpgradeHandler;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * WebSockets through the apps listener, end to end: the JDK's WebSocket client on one side, a real
 * WebSocket server (Jetty's, standing in for an app) on the other, the router between them.
 */
class WebSocketTunnelTest {
    static Server app;
    static int appPort;
    static RouteTable routes;
    static AppsListener listener;
    static final BlockingQueue<String> appSaw = new LinkedBlockingQueue<>();

    @BeforeAll
    static void start() throws Exception {
        app = new Server();
        ServerConnector connector = new ServerConnector(app);
        connector.setHost("127.0.0.1");
        app.addConnector(connector);
        app.setHandler(WebSocketUpgradeHandler.from(app, c -> {
            c.setMaxBinaryMessageSize(8 << 20);
            c.addMapping("/*", (req, resp, cb) -> {
                if (req.hasSubProtocol("chat.v2")) resp.setAcceptedSubProtocol("chat.v2");
                String hello = "hello " + req.getHttpURI().getPathQuery()
                        + " cookie=" + req.getHeaders().get("Cookie")
                        + " xff=" + req.getHeaders().get("X-Forwarded-For")
                        + " xfh=" + req.getHeaders().get("X-Forwarded-Host")
                        + " xri=" + req.getHeaders().get("X-Real-IP")
                        + " fwd=" + req.getHeaders().get("Forwarded")
                        + " via=" + String.join(",", req.getHeaders().getValuesList("Via"))
                        + " origin=" + req.getHeaders().get("Origin");
                return new EchoApp(hello);
            });
        }));
        app.start();
        appPort = connector.getLocalPort();
        routes = new RouteTable("localhost");
        listener = AppsListener.start("127.0.0.1", 0, routes, port -> false);
        // the client connects to 127.0.0.1, so that name is the app's custom domain
        routes.setProduction("chat", new Target.Upstream(appPort));
        routes.setDomain("127.0.0.1", "chat");
    }

    @AfterAll
    static void stop() throws Exception {
        listener.close();
        app.stop();
    }

    /** The app: greets first, echoes text and binary, closes with 4001 when asked, records the client's close. */
    public static final class EchoApp implements Session.Listener.AutoDemanding {
        private final String hello;
        private Session session;

        EchoApp(String hello) {
            this.hello = hello;
        }

        @Override
        public void onWebSocketOpen(Session session) {
            this.session = session;
            session.sendText(hello, Callback.NOOP);
        }

        @Override
        public void onWebSocketText(String message) {
            if (message.equals("close please")) session.close(4001, "bye", Callback.NOOP);
            else session.sendText("echo:" + message, Callback.NOOP);
        }

        @Override
        public void onWebSocketBinary(ByteBuffer payload, Callback callback) {
            ByteBuffer copy = ByteBuffer.allocate(payload.remaining()).put(payload).flip();
            callback.succeed();
            session.sendBinary(copy, Callback.NOOP);
        }

        @Override
        public void onWebSocketClose(int statusCode, String reason) {
            appSaw.add("closed " + statusCode + " " + reason);
        }
    }

    /** The client's side: every message and close as a line, in order; binary as its bytes. */
    static final class Recorder implements WebSocket.Listener {
        final BlockingQueue<Object> received = new LinkedBlockingQueue<>();
        private final StringBuilder text = new StringBuilder();
        private ByteArrayOutputStream binary = new ByteArrayOutputStream();

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                received.add(text.toString());
                text.setLength(0);
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
            byte[] chunk = new byte[data.remaining()];
            data.get(chunk);
            binary.writeBytes(chunk);
            if (last) {
                received.add(binary.toByteArray());
                binary = new ByteArrayOutputStream();
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onPong(WebSocket ws, ByteBuffer message) {
            received.add("pong " + StandardCharsets.UTF_8.decode(message));
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket ws, int statusCode, String reason) {
            received.add("closed " + statusCode + " " + reason);
            return null;
        }

        Object next() throws InterruptedException {
            Object o = received.poll(10, TimeUnit.SECONDS);
            assertThat(o).as("a message within 10 s").isNotNull();
            return o;
        }
    }

    private static WebSocket connect(Recorder recorder, String pathQuery, String... protocols) throws Exception {
        WebSocket.Builder b = HttpClient.newHttpClient().newWebSocketBuilder()
                .header("Cookie", "session=abc")
                .header("Origin", "http://127.0.0.1:" + listener.port())
                // what a client claims of its address and its path: the app must see none of it
                .header("X-Forwarded-For", "6.6.6.6").header("X-Real-IP", "6.6.6.6")
                .header("Forwarded", "for=6.6.6.6").header("Via", "1.1 evil-proxy");
        if (protocols.length > 0) b.subprotocols(protocols[0], Arrays.copyOfRange(protocols, 1, protocols.length));
        try {
            return b.buildAsync(URI.create("ws://127.0.0.1:" + listener.port() + pathQuery), recorder).get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof WebSocketHandshakeException h) {
                throw new AssertionError("handshake refused: " + h.getResponse().statusCode() + " " + h.getResponse().body(), e);
            }
            throw e;
        }
    }

    @Test
    void textAndBinaryPassBothWaysWithTheHandshakeForwarded() throws Exception {
        Recorder r = new Recorder();
        WebSocket ws = connect(r, "/socket?room=7", "chat.v1", "chat.v2");
        assertThat(ws.getSubprotocol()).as("the app's choice of sub-protocol").isEqualTo("chat.v2");
        assertThat((String) r.next()).as("what the app says first, and what it saw of the handshake")
                .startsWith("hello /socket?room=7 cookie=session=abc xff=127.0.0.1 xfh=127.0.0.1:" + listener.port()
                        + " xri=127.0.0.1 fwd=by=\"127.0.0.1\";for=\"127.0.0.1\";host=\"127.0.0.1:" + listener.port() + "\";proto=http via=1.1 ")
                .endsWith("origin=http://127.0.0.1:" + listener.port())
                .doesNotContain("6.6.6.6").doesNotContain("evil");

        ws.sendText("hi", true).get(5, TimeUnit.SECONDS);
        assertThat(r.next()).isEqualTo("echo:hi");

        byte[] big = new byte[3 << 20]; // larger than any single default frame or message limit
        new Random(7).nextBytes(big);
        ws.sendBinary(ByteBuffer.wrap(big), true).get(10, TimeUnit.SECONDS);
        assertThat((byte[]) r.next()).as("3 MiB binary message, byte for byte").isEqualTo(big);

        ws.sendPing(ByteBuffer.wrap("are you there".getBytes())).get(5, TimeUnit.SECONDS);
        assertThat(r.next()).isEqualTo("pong are you there");

        // a message in fragments arrives whole and in order
        ws.sendText("frag", false).get(5, TimeUnit.SECONDS);
        ws.sendText("ment", false).get(5, TimeUnit.SECONDS);
        ws.sendText("ed", true).get(5, TimeUnit.SECONDS);
        assertThat(r.next()).isEqualTo("echo:fragmented");

        List<String> sent = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            sent.add("m" + i);
            ws.sendText("m" + i, true).get(5, TimeUnit.SECONDS);
        }
        List<Object> echoed = new ArrayList<>();
        for (int i = 0; i < 500; i++) echoed.add(r.next());
        assertThat(echoed).as("500 messages, in order").isEqualTo(sent.stream().map(s -> "echo:" + s).toList());

        appSaw.clear();
        ws.sendClose(1000, "done").get(5, TimeUnit.SECONDS);
        assertThat(appSaw.poll(10, TimeUnit.SECONDS)).as("the app sees the client's close").isEqualTo("closed 1000 done");
        assertThat(r.next()).isEqualTo("closed 1000 done");
    }

    @Test
    void theAppsCloseCodeAndReasonReachTheClient() throws Exception {
        Recorder r = new Recorder();
        WebSocket ws = connect(r, "/");
        assertThat((String) r.next()).startsWith("hello /");
        ws.sendText("close please", true).get(5, TimeUnit.SECONDS);
        assertThat(r.next()).isEqualTo("closed 4001 bye");
    }

    @Test
    void anUpgradeToAnAppThatIsDownIsRefusedWith502() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        routes.setProduction("gone", new Target.Upstream(closed));
        routes.setDomain("127.0.0.1", "gone");
        try {
            CompletableFuture<WebSocket> f = HttpClient.newHttpClient().newWebSocketBuilder()
                    .buildAsync(URI.create("ws://127.0.0.1:" + listener.port() + "/"), new Recorder());
            assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(WebSocketHandshakeException.class)
                    .satisfies(e -> assertThat(((WebSocketHandshakeException) e).getResponse().statusCode()).isEqualTo(502));
        } finally {
            routes.setDomain("127.0.0.1", "chat");
        }
    }
}
