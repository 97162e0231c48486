package dev.slipway.router;

import dev.slipway.net.ClientGate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * The listening socket as one relay loop sees it: every loop's selector watches it, and the loop that wakes
 * first takes the connection and keeps it, so a new connection costs no hand-off from an accepting thread to a
 * loop (a thread wake-up each, tens of ms on a busy machine, on the first request of every rollback check).
 */
final class RelayAcceptor implements RelayLoop.Io {
    private static final Logger LOG = LoggerFactory.getLogger(RelayAcceptor.class);
    /** Connections one wake-up takes at most, so that a burst spreads over the loops. */
    private static final int BATCH = 4;

    private final RelayLoop loop;
    private final ServerSocketChannel server;
    private final SelectionKey key;
    private boolean paused;

    RelayAcceptor(RelayLoop loop, ServerSocketChannel server) throws IOException {
        this.loop = loop;
        this.server = server;
        this.key = server.register(loop.selector, SelectionKey.OP_ACCEPT, this);
    }

    @Override
    public void ready(SelectionKey k) {
        for (int i = 0; i < BATCH; i++) {
            SocketChannel c;
            try {
                c = server.accept();
            } catch (IOException e) {
                // out of descriptors, most likely: a level-triggered selector would spin on it, so stop
                // accepting until the next sweep
                if (server.isOpen()) LOG.warn("apps listener cannot accept: {}", e.toString());
                pause();
                return;
            }
            if (c == null) return; // another loop took it
            admit(c);
        }
    }

    /** Counts the connection toward its client's and the listener's caps, and serves it, or refuses it with a 503. */
    private void admit(SocketChannel c) {
        ClientGate gate = loop.relay.gate();
        long key;
        try {
            key = gate.key(((InetSocketAddress) c.getRemoteAddress()).getAddress());
        } catch (IOException e) {
            RelayLoop.closeQuietly(c);
            return;
        }
        if (!gate.open(key)) {
            refuse(c, gate.refusal());
            return;
        }
        try {
            new RelayClient(loop, c, key);
        } catch (IOException e) {
            gate.close(key);
            RelayLoop.closeQuietly(c);
        }
    }

    /** The 503 and the close, at once: a refused connection holds nothing, not even a linger. */
    private static void refuse(SocketChannel c, byte[] answer) {
        try {
            c.configureBlocking(false);
            c.write(ByteBuffer.wrap(answer)); // a new socket's buffer takes it whole
            c.shutdownOutput();
        } catch (IOException ignored) {
            // closing anyway
        }
        RelayLoop.closeQuietly(c);
    }

    private void pause() {
        if (key.isValid()) {
            key.interestOps(0);
            paused = true;
        }
    }

    @Override
    public void expire(long now) {
        if (paused && key.isValid()) {
            key.interestOps(SelectionKey.OP_ACCEPT);
            paused = false;
        }
    }

    @Override
    public void close() {
        key.cancel(); // the socket is the relay's to close
    }
}
