package dev.slipway.router;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

/**
 * One connection from the relay to an app. While an exchange uses it, its events go to that exchange's
 * {@link RelayClient}; while it waits in the loop's pool, any byte or the end of the stream from the app
 * means it cannot be reused, and it is closed.
 */
final class RelayUpstream implements RelayLoop.Io {
    private static final long POOLED_IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(UpstreamProxy.POOLED_IDLE_MS);

    final RelayLoop loop;
    final Target.Upstream target;
    final SocketChannel channel;
    final SelectionKey key;
    final ByteBuffer in = ByteBuffer.allocateDirect(RelayLoop.BUFFER).limit(0);
    private RelayClient owner;
    private long idleSince;
    private boolean closed;

    /** Starts connecting; {@link #connected()} tells whether that finished at once (loopback often does). */
    RelayUpstream(RelayLoop loop, Target.Upstream target, RelayClient owner) throws IOException {
        this.loop = loop;
        this.target = target;
        this.owner = owner;
        this.channel = SocketChannel.open();
        try {
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            boolean done = channel.connect(new InetSocketAddress(target.host(), target.port()));
            key = channel.register(loop.selector, done ? 0 : SelectionKey.OP_CONNECT, this);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    boolean connected() {
        return channel.isConnected();
    }

    boolean open() {
        return !closed && channel.isOpen();
    }

    void attach(RelayClient client) {
        owner = client;
    }

    void idleSince(long now) {
        owner = null;
        idleSince = now;
        in.clear().limit(0);
        key.interestOps(SelectionKey.OP_READ);
    }

    @Override
    public void ready(SelectionKey key) throws IOException {
        if (owner != null) {
            owner.upstreamReady(key);
            return;
        }
        // pooled: the app closed it, or sent what no request asked for
        close();
    }

    @Override
    public void expire(long now) {
        if (owner == null && now - idleSince > POOLED_IDLE_NANOS) close();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (owner == null) loop.forget(this);
        key.cancel();
        RelayLoop.closeQuietly(channel);
        RelayClient o = owner;
        owner = null;
        if (o != null) o.upstreamFailed();
    }

    /** Closes the connection without touching the exchange that used it. */
    void discard() {
        owner = null;
        closed = true;
        key.cancel();
        RelayLoop.closeQuietly(channel);
    }
}
