package dev.slipway.databases;

import dev.slipway.net.Cidr;
import org.mariadb.jdbc.Configuration;
import org.mariadb.jdbc.util.ConfigurableSocketFactory;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.stream.Collectors;

/**
 * The sockets of a connection to a database an account named: connected to the addresses its one lookup was checked
 * at ({@link ConnectTargets}), never to what a second lookup of the name would answer (a DNS rebinding would lead
 * that one to the server's own network). The JDBC drivers take it by class name in their {@code socketFactory}
 * property and give it the connection's properties (PostgreSQL to the constructor, MariaDB through
 * {@link #setConfiguration}); the socket is connected when they get it, so they make no lookup or connection of
 * their own, and TLS still checks the certificate against the name.
 */
public final class PinnedSockets extends ConfigurableSocketFactory {
    static final String ADDRESSES = "slipwayCheckedAddresses";
    static final String PORT = "slipwayCheckedPort";

    private List<InetAddress> addresses = List.of();
    private int port;

    /** MariaDB's way: then {@link #setConfiguration}. */
    public PinnedSockets() {
    }

    /** PostgreSQL's way: the connection's properties. */
    public PinnedSockets(Properties connection) {
        read(connection);
    }

    /** Makes the connection of {@code props} go through this factory to the checked addresses, on {@code port}. */
    static void pin(Properties props, List<InetAddress> checked, int port) {
        props.setProperty("socketFactory", PinnedSockets.class.getName());
        props.setProperty(ADDRESSES, checked.stream().map(InetAddress::getHostAddress).collect(Collectors.joining(",")));
        props.setProperty(PORT, Integer.toString(port));
    }

    @Override
    public void setConfiguration(Configuration conf, String host) {
        read(conf.nonMappedOptions());
    }

    private void read(Properties p) {
        List<InetAddress> out = new ArrayList<>();
        String list = p.getProperty(ADDRESSES, "");
        // address literals, as pin() wrote them: parsed, never looked up (a name is refused)
        for (String a : list.split(",")) if (!a.isBlank()) out.add(Cidr.parse(a).network());
        addresses = List.copyOf(out);
        port = Integer.parseInt(p.getProperty(PORT, "0"));
    }

    /** Connected to the first checked address that answers, each within the connect timeout. */
    @Override
    public Socket createSocket() throws IOException {
        if (addresses.isEmpty() || port <= 0) throw new SocketException("no checked address to connect to");
        IOException last = null;
        for (InetAddress a : addresses) {
            Socket s = new Socket();
            try {
                s.connect(new InetSocketAddress(a, port), Connections.CONNECT_TIMEOUT_SECONDS * 1000);
                return s;
            } catch (IOException e) {
                s.close();
                last = e;
            }
        }
        throw last;
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        throw refused();
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        throw refused();
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        throw refused();
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort) throws IOException {
        throw refused();
    }

    private static SocketException refused() {
        return new SocketException("a connection to an account's database goes only to its checked addresses");
    }
}
