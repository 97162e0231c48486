package dev.slipway.router;

import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.api.StatusCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;

/**
 * One side of a tunnel: what it receives is written to its peer, and it asks for the next frame
 * only once that write is done. The app's side waits for the client's side to open before it
 * reads at all, so nothing the app says first is lost or buffered.
 */
public final class WebSocketRelay implements Session.Listener {
    private static final Logger LOG = LoggerFactory.getLogger(WebSocketRelay.class);

    enum Side { APP, CLIENT }

    private final Side side;
    private final Runnable onFrame;
    private volatile WebSocketRelay peer;
    private volatile Session session;

    /** @param onFrame told of each frame this side receives */
    WebSocketRelay(Side side, Runnable onFrame) {
        this.side = side;
        this.onFrame = onFrame;
    }

    static void pair(WebSocketRelay a, WebSocketRelay b) {
        a.peer = b;
        b.peer = a;
    }

    @Override
    public void onWebSocketOpen(Session session) {
        this.session = session;
        if (side == Side.CLIENT) {
            session.demand();
            peer.session.demand();
        }
    }

    @Override
    public void onWebSocketPartialText(String payload, boolean last) {
        onFrame.run();
        peer.session.sendPartialText(payload, last, next());
    }

    @Override
    public void onWebSocketPartialBinary(ByteBuffer payload, boolean last, Callback callback) {
        onFrame.run();
        peer.session.sendPartialBinary(payload, last, Callback.from(() -> {
            callback.succeed();
            session.demand();
        }, failure -> {
            callback.fail(failure);
            abort(failure);
        }));
    }

    @Override
    public void onWebSocketClose(int statusCode, String reason) {
        Session other = peer.session;
        if (other != null && other.isOpen()) other.close(sendable(statusCode), reason, Callback.NOOP);
    }

    @Override
    public void onWebSocketError(Throwable cause) {
        abort(cause);
    }

    private Callback next() {
        return Callback.from(session::demand, this::abort);
    }

    private void abort(Throwable cause) {
        LOG.debug("websocket tunnel: the {} side failed: {}", side, cause.toString());
        for (Session s : new Session[] {session, peer.session}) {
            if (s != null && s.isOpen()) s.close(StatusCode.SERVER_ERROR, "tunnel failed", Callback.NOOP);
        }
    }

    /** Codes that only describe a close (no status, abnormal) cannot be sent on; they become 1000/1011. */
    static int sendable(int code) {
        return switch (code) {
            case StatusCode.NO_CODE -> StatusCode.NORMAL;
            case StatusCode.ABNORMAL, StatusCode.FAILED_TLS_HANDSHAKE -> StatusCode.SERVER_ERROR;
            default -> code;
        };
    }
}
