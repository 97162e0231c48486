package dev.slipway.drains;

import dev.slipway.net.AddressGuard;

import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * Syslog over TCP ({@code syslog://host[:514]}) or TLS ({@code syslog+tls://host[:6514]}, the host's certificate checked
 * against the JVM's trusted CAs): each line an RFC 5424 message, framed by octet counting (RFC 6587 §3.4.1). One
 * connection per drain, kept open between batches; the address it connects to is the one the guard checked.
 */
final class SyslogSender implements DrainSender {
    /** facility 1 (user-level messages) */
    private static final int FACILITY = 1;
    private static final DateTimeFormatter TIME = DateTimeFormatter.ISO_INSTANT;

    private final AddressGuard guard;
    private final Duration timeout;
    private final String hostname;
    private Socket socket;
    /** The TCP connection under {@link #socket} (the same socket without TLS). */
    private Socket plain;
    private URI connectedTo;

    SyslogSender(AddressGuard guard, Duration timeout, String hostname) {
        this.guard = guard;
        this.timeout = timeout;
        this.hostname = printable(hostname, 255);
    }

    @Override
    public synchronized void send(LogDrain drain, List<DrainLine> lines) throws IOException, AddressGuard.Refused {
        StringBuilder out = new StringBuilder(lines.size() * 160);
        for (DrainLine l : lines) {
            String message = message(drain.projectId(), l);
            out.append(message.getBytes(StandardCharsets.UTF_8).length).append(' ').append(message);
        }
        OutputStream to = connection(drain.url()).getOutputStream();
        try {
            to.write(out.toString().getBytes(StandardCharsets.UTF_8));
            to.flush();
        } catch (IOException e) {
            close();
            throw e;
        }
    }

    /** One line as an RFC 5424 message: {@code <PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID - MSG}. */
    String message(String projectId, DrainLine l) {
        int severity = switch (l.level()) {
            case "error" -> 3;
            case "warning" -> 4;
            case "success" -> 5;
            default -> 6;
        };
        String msgid = l.source().equals(LogDrain.REQUESTS) ? "request" : "log";
        return "<" + (FACILITY * 8 + severity) + ">1 " + TIME.format(l.at()) + " " + hostname + " " + printable(projectId, 48) + " "
                + printable(l.owner(), 128) + " " + msgid + " - " + l.message().replace('\n', ' ');
    }

    /** A header field: printable US-ASCII without spaces, or {@code -} when empty. */
    private static String printable(String s, int max) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length() && b.length() < max; i++) {
            char c = s.charAt(i);
            if (c > 32 && c < 127) b.append(c);
        }
        return b.isEmpty() ? "-" : b.toString();
    }

    private Socket connection(URI url) throws IOException, AddressGuard.Refused {
        if (socket != null && url.equals(connectedTo) && !socket.isClosed() && open()) return socket;
        close();
        boolean tls = url.getScheme().equals("syslog+tls");
        int port = url.getPort() > 0 ? url.getPort() : tls ? 6514 : 514;
        InetAddress[] addresses = guard.check(url);
        Socket tcp = new Socket();
        try {
            tcp.connect(new InetSocketAddress(addresses[0], port), (int) timeout.toMillis());
            tcp.setSoTimeout((int) timeout.toMillis());
            Socket s = tcp;
            if (tls) {
                SSLSocket secure = (SSLSocket) ((SSLSocketFactory) SSLSocketFactory.getDefault()).createSocket(tcp, url.getHost(), port, true);
                SSLParameters p = secure.getSSLParameters();
                p.setEndpointIdentificationAlgorithm("HTTPS");
                secure.setSSLParameters(p);
                secure.startHandshake();
                s = secure;
            }
            socket = s;
            plain = tcp;
            connectedTo = url;
            return s;
        } catch (IOException e) {
            tcp.close();
            throw e;
        }
    }

    /**
     * Whether the receiver still holds the connection: it never sends, so an end (or anything, such as TLS's
     * close_notify) means it closed it, and lines written now would be lost without an error.
     */
    private boolean open() {
        try {
            plain.setSoTimeout(1);
            plain.getInputStream().read();
            return false;
        } catch (java.net.SocketTimeoutException quiet) {
            return true;
        } catch (IOException e) {
            return false;
        } finally {
            try {
                if (!plain.isClosed()) plain.setSoTimeout((int) timeout.toMillis());
            } catch (IOException ignored) {
                // closed meanwhile: the next write fails
            }
        }
    }

    @Override
    public synchronized void close() {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // gone anyway
            }
        }
        socket = null;
        plain = null;
        connectedTo = null;
    }
}
