package dev.slipway.router;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * A client connection handed to Jetty for the rest of its life: a PROXY protocol line (so Jetty sees the
 * client's address and the listener's port as if it had accepted the connection itself), the bytes the relay
 * had read, then whatever either side sends, each way as the other side can take it. Jetty's own timeouts
 * govern the exchange; the tunnel's is only a backstop.
 */
final class RelayTunnel implements RelayLoop.Io {
    private static final long IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(UpstreamProxy.REQUEST_IDLE_MS + 60_000);

    private final RelayLoop loop;
    private final SocketChannel client;
    private final SelectionKey clientKey;
    private final SocketChannel jetty;
    private final SelectionKey jettyKey;
    /** Client → Jetty: the PROXY line first, then the client's bytes. */
    private ByteBuffer preface;
    private final ByteBuffer up;
    private final ByteBuffer down = ByteBuffer.allocateDirect(RelayLoop.BUFFER).limit(0);
    private final ByteBuffer[] gather = new ByteBuffer[2];
    private boolean clientEof;
    private boolean jettyEof;
    private boolean connected;
    private boolean closed;
    private long lastActive;
    /** What the client's connection is counted under by the gate, until it closes. */
    private final long gateKey;

    RelayTunnel(RelayLoop loop, SocketChannel client, SelectionKey clientKey, ByteBuffer read, long gateKey) throws IOException {
        this.loop = loop;
        this.gateKey = gateKey;
        this.client = client;
        this.clientKey = clientKey;
        this.up = read;
        this.lastActive = loop.now;
        clientKey.attach(this);
        clientKey.interestOps(0);
        SocketChannel j = null;
        SelectionKey k;
        try {
            InetSocketAddress from = (InetSocketAddress) client.getRemoteAddress();
            InetSocketAddress to = (InetSocketAddress) client.getLocalAddress();
            boolean v4 = from.getAddress() instanceof Inet4Address && to.getAddress() instanceof Inet4Address;
            String line = "PROXY " + (v4 ? "TCP4 " : "TCP6 ") + from.getAddress().getHostAddress() + " "
                    + to.getAddress().getHostAddress() + " " + from.getPort() + " " + to.getPort() + "\r\n";
            this.preface = ByteBuffer.wrap(line.getBytes(StandardCharsets.US_ASCII));
            j = SocketChannel.open();
            j.configureBlocking(false);
            j.setOption(StandardSocketOptions.TCP_NODELAY, true);
            connected = j.connect(loop.relay.jetty());
            k = j.register(loop.selector, connected ? 0 : SelectionKey.OP_CONNECT, this);
        } catch (IOException | RuntimeException e) {
            RelayLoop.closeQuietly(j);
            close(); // the client's connection, and its count, are this tunnel's from the start
            throw e;
        }
        this.jetty = j;
        this.jettyKey = k;
        if (connected) pump();
    }

    @Override
    public void ready(SelectionKey key) throws IOException {
        if (key == jettyKey && !connected) {
            if (!key.isConnectable()) return;
            jetty.finishConnect();
            connected = true;
        } else if (key == clientKey && key.isReadable()) {
            if (RelayLoop.fill(client, up) < 0) {
                clientEof = true;
                if (!up.hasRemaining() && preface == null) jetty.shutdownOutput();
            }
        } else if (key == jettyKey && key.isReadable()) {
            if (RelayLoop.fill(jetty, down) < 0) jettyEof = true;
        }
        lastActive = loop.now;
        pump();
    }

    private void pump() throws IOException {
        if (closed || !connected) return;
        if (preface != null || up.hasRemaining()) {
            if (preface != null) {
                gather[0] = preface;
                gather[1] = up;
                jetty.write(gather);
                if (!preface.hasRemaining()) preface = null;
            } else {
                jetty.write(up);
            }
            if (clientEof && preface == null && !up.hasRemaining()) jetty.shutdownOutput();
        }
        if (down.hasRemaining()) client.write(down);
        if (jettyEof && !down.hasRemaining()) {
            close(); // Jetty is done with the connection: so is the client
            return;
        }
        boolean upPending = preface != null || up.hasRemaining();
        clientKey.interestOps((!clientEof && !upPending ? SelectionKey.OP_READ : 0) | (down.hasRemaining() ? SelectionKey.OP_WRITE : 0));
        jettyKey.interestOps((upPending ? SelectionKey.OP_WRITE : 0) | (!jettyEof && !down.hasRemaining() ? SelectionKey.OP_READ : 0));
    }

    @Override
    public void expire(long now) {
        if (now - lastActive > IDLE_NANOS) close();
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        loop.relay.gate().close(gateKey);
        clientKey.cancel();
        RelayLoop.closeQuietly(client);
        if (jettyKey != null) jettyKey.cancel();
        RelayLoop.closeQuietly(jetty);
    }
}
