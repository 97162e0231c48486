package dev.slipway.net;

import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.ssl.SslConnection;
import org.eclipse.jetty.server.AbstractConnector;
import org.eclipse.jetty.server.internal.HttpConnection;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.NanoTime;
import org.eclipse.jetty.util.component.AbstractLifeCycle;
import org.eclipse.jetty.util.thread.Scheduler;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A deadline for a whole request head on a Jetty connector, which has none of its own (its idle timeout starts
 * again with every byte, so a head sent a byte at a time never ends). A few times a deadline, each open
 * connection is looked at: a head begun longer than the deadline ago gets a 408 and the connection is closed;
 * a connection that has not had a whole first head (a TLS handshake included) within the deadline of its
 * opening is closed. Connections between requests are left to the idle timeout; request bodies to
 * {@code MinimumDataRateHandler}.
 */
final class HeadDeadlines extends AbstractLifeCycle implements Runnable {
    private final AbstractConnector connector;
    private final long timeoutNanos;
    private final long timeoutMillis;
    private final long periodMillis;
    private static final long LINGER_MILLIS = 1_000;
    private final byte[] answer;
    private volatile Scheduler.Task task;

    /** @param answer the whole 408 response written to a connection whose head is late */
    HeadDeadlines(AbstractConnector connector, Duration timeout, byte[] answer) {
        this.connector = connector;
        this.timeoutNanos = timeout.toNanos();
        this.timeoutMillis = timeout.toMillis();
        this.periodMillis = Math.clamp(timeout.toMillis() / 4, 100, 500);
        this.answer = answer;
    }

    @Override
    protected void doStart() {
        schedule();
    }

    @Override
    protected void doStop() {
        Scheduler.Task t = task;
        if (t != null) t.cancel();
    }

    private void schedule() {
        task = connector.getScheduler().schedule(this, periodMillis, TimeUnit.MILLISECONDS);
    }

    @Override
    public void run() {
        try {
            long nanos = NanoTime.now();
            long millis = System.currentTimeMillis(); // the endpoints' creation stamps are wall-clock millis
            for (EndPoint e : connector.getConnectedEndPoints()) check(e, nanos, millis);
        } finally {
            if (isRunning()) schedule();
        }
    }

    private void check(EndPoint endPoint, long nanos, long millis) {
        Connection c = endPoint.getConnection();
        if (c instanceof SslConnection ssl) c = ssl.getSslEndPoint().getConnection();
        if (!(c instanceof HttpConnection http)) return; // a WebSocket, a tunnel: past the head
        HttpParser parser = http.getParser();
        if (!parser.isStart() && parser.inHeaderState()) {
            if (NanoTime.elapsed(parser.getBeginNanoTime(), nanos) > timeoutNanos) late(http.getEndPoint(), endPoint);
        } else if (parser.isStart() && http.getMessagesIn() == 0 && millis - endPoint.getCreatedTimeStamp() > timeoutMillis) {
            endPoint.close(); // nothing, or only part of a TLS handshake, since it opened
        }
    }

    private void late(EndPoint http, EndPoint network) {
        if (!http.isOpen() || http.isOutputShutdown()) return; // answered already, closing
        try {
            http.write(Callback.from(() -> {
                // the answer and a FIN now; the socket a moment later: closing it while the client's late bytes
                // are unread would reset the connection, and a reset can take the unsent answer with it
                http.shutdownOutput();
                connector.getScheduler().schedule(network::close, LINGER_MILLIS, TimeUnit.MILLISECONDS);
            }, failure -> network.close()), ByteBuffer.wrap(answer));
        } catch (RuntimeException writing) { // a write of Jetty's own in flight
            network.close();
        }
    }
}
