package dev.slipway.router;

import java.io.Closeable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One selector thread of the relay. It owns every connection it accepted and every app connection those
 * opened, and keeps its own pool of idle keep-alive connections to apps, so nothing on the hot path is shared
 * with another thread: no locks, as in one nginx worker.
 */
final class RelayLoop implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(RelayLoop.class);
    static final int BUFFER = 16 * 1024;
    private static final long SWEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    /** A failure of the relay's own is logged with its stack trace at most this often: clients must not fill the log. */
    private static final long FAILURE_LOG_NANOS = TimeUnit.MINUTES.toNanos(1);

    /** What a selection key's attachment does with its channel's readiness. */
    interface Io {
        void ready(SelectionKey key) throws IOException;

        /** Closes what has been idle too long; {@code now} is System.nanoTime(). */
        void expire(long now);

        void close();
    }

    final Relay relay;
    final Selector selector;
    /** How long a request head may take to come whole (the gate's head timeout), and the body's progress window. */
    final long headNanos;
    /** The heads being read, one request's and one response's at a time on this thread. */
    final RelayHead requestHead = new RelayHead();
    final RelayHead responseHead = new RelayHead();
    /** The request log's paths seen on this thread (see {@link RelayHead#pathWithoutQuery}). */
    final String[] paths = new String[512];
    private final Map<Target.Upstream, ArrayDeque<RelayUpstream>> idle = new HashMap<>();
    private volatile boolean running = true;
    private long lastSweep = System.nanoTime();
    /** System.nanoTime() when the current events were selected: one clock read per wake-up, not per event. */
    long now = System.nanoTime();
    private boolean clockRead;
    private final Consumer<SelectionKey> dispatch = this::dispatch;
    private long failureLogged = System.nanoTime() - FAILURE_LOG_NANOS - 1;
    private int failuresUnlogged;

    RelayLoop(Relay relay) throws IOException {
        this.relay = relay;
        this.selector = Selector.open();
        this.headNanos = relay.gate().limits().headTimeout().toNanos();
    }

    void stop() {
        running = false;
        selector.wakeup();
    }

    @Override
    public void run() {
        try {
            while (running) {
                clockRead = false;
                // events handed one by one as they are read: no selected-key set to fill and iterate
                selector.select(dispatch, 500);
                if (!clockRead) now = System.nanoTime();
                if (now - lastSweep > SWEEP_NANOS) sweep();
            }
        } catch (IOException | RuntimeException e) {
            if (running) LOG.error("relay loop stopped", e);
        } finally {
            for (SelectionKey key : new ArrayList<>(selector.keys())) ((Io) key.attachment()).close();
            try {
                selector.close();
            } catch (IOException ignored) {
                // stopping
            }
        }
    }

    private void dispatch(SelectionKey key) {
        if (!clockRead) {
            now = System.nanoTime();
            clockRead = true;
        }
        Io io = (Io) key.attachment();
        try {
            if (key.isValid()) io.ready(key);
        } catch (IOException | CancelledKeyException e) {
            io.close();
        } catch (RuntimeException e) {
            if (now - failureLogged > FAILURE_LOG_NANOS) {
                LOG.warn("relay connection failed ({} more since the last one logged)", failuresUnlogged, e);
                failureLogged = now;
                failuresUnlogged = 0;
            } else {
                failuresUnlogged++;
            }
            io.close();
        }
    }

    private void sweep() {
        lastSweep = now;
        for (SelectionKey key : new ArrayList<>(selector.keys())) {
            if (key.isValid()) ((Io) key.attachment()).expire(now);
        }
    }

    /** An idle connection to {@code target} from this loop's pool, or null. */
    RelayUpstream pooled(Target.Upstream target) {
        ArrayDeque<RelayUpstream> q = idle.get(target);
        if (q == null) return null;
        RelayUpstream u;
        // newest first: the most recently used connection is the least likely to be closing
        while ((u = q.pollLast()) != null) {
            if (u.open()) return u;
        }
        return null;
    }

    void release(RelayUpstream upstream) {
        upstream.idleSince(now);
        idle.computeIfAbsent(upstream.target, t -> new ArrayDeque<>()).addLast(upstream);
    }

    void forget(RelayUpstream upstream) {
        ArrayDeque<RelayUpstream> q = idle.get(upstream.target);
        if (q != null) {
            q.remove(upstream);
            if (q.isEmpty()) idle.remove(upstream.target);
        }
    }

    /** Reads more bytes after the buffer's unread ones (read mode kept); -1 at the end of the stream. */
    static int fill(SocketChannel channel, ByteBuffer buf) throws IOException {
        if (!buf.hasRemaining()) buf.clear().limit(0);
        else if (buf.limit() == buf.capacity()) buf.compact().flip();
        int start = buf.position();
        buf.position(buf.limit()).limit(buf.capacity());
        int n;
        try {
            n = channel.read(buf);
        } finally {
            buf.limit(buf.position()).position(start);
        }
        return n;
    }

    static void closeQuietly(Closeable c) {
        if (c == null) return;
        try {
            c.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
