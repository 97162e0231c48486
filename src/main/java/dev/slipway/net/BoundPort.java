package dev.slipway.net;

import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;

/**
 * A listening socket bound before the server that serves it is made: every address (the API's for links,
 * the apps listener's for app URLs) is known while the server is wired, even on port 0.
 */
public final class BoundPort implements AutoCloseable {
    private final String host;
    private final ServerSocketChannel channel;

    private BoundPort(String host, ServerSocketChannel channel) {
        this.host = host;
        this.channel = channel;
    }

    /** Binds {@code host:port} (0: a free port); {@code what} names the listener in the error. */
    public static BoundPort bind(String what, String host, int port) {
        ServerSocketChannel channel = null;
        try {
            channel = ServerSocketChannel.open();
            channel.socket().setReuseAddress(true);
            channel.bind(new InetSocketAddress(host, port));
            return new BoundPort(host, channel);
        } catch (IOException | RuntimeException e) {
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException ignored) {
                    // already failing
                }
            }
            throw new IllegalStateException(what + " cannot listen on " + host + ":" + port + ": " + e.getMessage(), e);
        }
    }

    public String host() { return host; }

    public int port() { return channel.socket().getLocalPort(); }

    /** The listening socket itself, for a server that accepts on its own (the apps listener's relay). */
    public ServerSocketChannel channel() { return channel; }

    /** A Jetty connector that accepts on this socket; it closes the socket when it stops. */
    public ServerConnector connector(Server server, ConnectionFactory... factories) {
        ServerConnector connector = new ServerConnector(server, factories);
        connector.setHost(host);
        try {
            connector.open(channel);
        } catch (IOException e) {
            throw new IllegalStateException("cannot accept on " + host + ":" + port() + ": " + e.getMessage(), e);
        }
        return connector;
    }

    /** For a port whose server never started. */
    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException ignored) {
            // nothing to do on a failed start
        }
    }
}
