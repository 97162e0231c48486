package dev.slipway.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP hop on loopback between a server and a real service (the machine's PostgreSQL): {@link #cut} plays the service
 * going away (a restart, a failover, a network blip) for this server alone, {@link #restore} brings it back on the
 * same port.
 */
public final class TcpProxy implements AutoCloseable {
    private final String targetHost;
    private final int targetPort;
    private final int port;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile ServerSocket listener;
    /** How long each chunk from the service waits before it is passed on: a slow service, not a gone one. */
    private volatile Duration delay = Duration.ZERO;

    private TcpProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.listener = bind(0);
        this.port = listener.getLocalPort();
        accept(listener);
    }

    public static TcpProxy to(String host, int port) {
        try {
            return new TcpProxy(host, port);
        } catch (IOException e) {
            throw new AssertionError("cannot start a TCP proxy: " + e, e);
        }
    }

    public int port() { return port; }

    /** Closes the listener and every connection through it: the service is gone. */
    public synchronized void cut() throws IOException {
        listener.close();
        for (Socket s : open) s.close();
        open.clear();
    }

    /** From now on each answer of the service reaches the client {@code delay} late (zero: at once again). */
    public void slow(Duration delay) {
        this.delay = delay;
    }

    /** Listens again on the same port. */
    public synchronized void restore() throws IOException {
        listener = bind(port);
        accept(listener);
    }

    private static ServerSocket bind(int port) throws IOException {
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        return s;
    }

    private void accept(ServerSocket on) {
        Thread.ofVirtual().start(() -> {
            while (!on.isClosed()) {
                Socket client;
                try {
                    client = on.accept();
                } catch (IOException closed) {
                    return;
                }
                try {
                    Socket upstream = new Socket(targetHost, targetPort);
                    synchronized (this) {
                        // a connection accepted just before a cut goes with it, not through it
                        if (on.isClosed()) {
                            upstream.close();
                            throw new IOException("cut");
                        }
                        open.add(client);
                        open.add(upstream);
                    }
                    pump(client, upstream, false);
                    pump(upstream, client, true);
                } catch (IOException refused) {
                    try {
                        client.close(); // the service refused: so does the hop
                    } catch (IOException ignored) {
                        // already closed
                    }
                }
            }
        });
    }

    private void pump(Socket from, Socket to, boolean answers) {
        Thread.ofVirtual().start(() -> {
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                byte[] buffer = new byte[16 * 1024];
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    Duration late = delay;
                    if (answers && !late.isZero()) Thread.sleep(late); // the fault itself: a service this slow
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException | InterruptedException e) {
                // one side closed
            } finally {
                try {
                    from.close();
                    to.close();
                } catch (IOException ignored) {
                    // already closed
                }
                open.remove(from);
                open.remove(to);
            }
        });
    }

    @Override
    public void close() throws IOException {
        cut();
    }
}
