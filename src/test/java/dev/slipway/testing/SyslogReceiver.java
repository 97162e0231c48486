package dev.slipway.testing;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A syslog receiver on loopback TCP, as rsyslog's imtcp or a log service's syslog input: it reads RFC 5424 messages
 * framed by octet counting (RFC 6587) and keeps them in arrival order. It can go down (its port and every connection
 * closed) and come back on the same port.
 */
public final class SyslogReceiver implements AutoCloseable {
    private final List<String> messages = new CopyOnWriteArrayList<>();
    private final List<Socket> connections = new CopyOnWriteArrayList<>();
    private final int port;
    private volatile ServerSocket server;

    private SyslogReceiver(ServerSocket server) {
        this.server = server;
        this.port = server.getLocalPort();
        accept(server);
    }

    public static SyslogReceiver start() {
        try {
            return new SyslogReceiver(bind(0));
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the syslog receiver", e);
        }
    }

    private static ServerSocket bind(int port) throws IOException {
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
        return s;
    }

    public String url() {
        return "syslog://127.0.0.1:" + port;
    }

    public List<String> messages() {
        return List.copyOf(messages);
    }

    /** Closes its port and every connection: a sender's next write or connect fails. */
    public void down() throws IOException {
        server.close();
        for (Socket s : connections) s.close();
        connections.clear();
    }

    public void up() throws IOException {
        ServerSocket s = bind(port);
        server = s;
        accept(s);
    }

    private void accept(ServerSocket s) {
        Thread.ofVirtual().start(() -> {
            while (!s.isClosed()) {
                try {
                    Socket c = s.accept();
                    connections.add(c);
                    Thread.ofVirtual().start(() -> read(c));
                } catch (IOException e) {
                    return;
                }
            }
        });
    }

    private void read(Socket c) {
        try (c; InputStream in = new BufferedInputStream(c.getInputStream())) {
            while (true) {
                int length = 0;
                int b;
                while ((b = in.read()) != ' ') {
                    if (b < 0) return;
                    if (b < '0' || b > '9') throw new IOException("not octet-counted framing");
                    length = length * 10 + (b - '0');
                }
                byte[] message = in.readNBytes(length);
                if (message.length != length) return;
                messages.add(new String(message, StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            // the sender went, or the receiver went down
        }
    }

    @Override
    public void close() throws IOException {
        down();
    }
}
