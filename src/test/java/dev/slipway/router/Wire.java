package dev.slipway.router;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A raw HTTP/1.1 client connection for the relay's tests: writes exactly the bytes given and reads responses
 * by their framing, so keep-alive, pipelining and malformed input can be tested byte for byte.
 */
final class Wire implements AutoCloseable {
    final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    record Response(int status, Map<String, String> headers, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    Wire(int port) throws IOException {
        this(port, null);
    }

    /** From {@code from} (e.g. 127.0.0.2: another client address on loopback). */
    Wire(int port, InetAddress from) throws IOException {
        socket = new Socket();
        if (from != null) socket.bind(new InetSocketAddress(from, 0));
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        socket.setSoTimeout(15_000);
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    Wire send(String raw) throws IOException {
        return send(raw.getBytes(StandardCharsets.ISO_8859_1));
    }

    Wire send(byte[] raw) throws IOException {
        out.write(raw);
        out.flush();
        return this;
    }

    OutputStream out() {
        return out;
    }

    Response read() throws IOException {
        return read(false);
    }

    /** The next response; {@code head}: it answers a HEAD request (no body whatever its fields say). */
    Response read(boolean head) throws IOException {
        String statusLine = line();
        if (!statusLine.startsWith("HTTP/1.1 ")) throw new IOException("not a status line: " + statusLine);
        int status = Integer.parseInt(statusLine.substring(9, 12));
        Map<String, String> headers = new LinkedHashMap<>();
        for (String l = line(); !l.isEmpty(); l = line()) {
            int colon = l.indexOf(':');
            headers.merge(l.substring(0, colon).trim().toLowerCase(Locale.ROOT), l.substring(colon + 1).trim(), (a, b) -> a + ", " + b);
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        if (head || status == 204 || status == 304 || status < 200) return new Response(status, headers, body.toByteArray());
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            for (int size = Integer.parseInt(line().split(";")[0].trim(), 16); size > 0; size = Integer.parseInt(line().split(";")[0].trim(), 16)) {
                body.write(in.readNBytes(size));
                if (!line().isEmpty()) throw new IOException("chunk longer than its size");
            }
            while (!line().isEmpty()) {
                // trailers
            }
        } else if (headers.containsKey("content-length")) {
            byte[] b = in.readNBytes(Integer.parseInt(headers.get("content-length")));
            body.write(b);
        } else {
            in.transferTo(body);
        }
        return new Response(status, headers, body.toByteArray());
    }

    /** Whether the other side closed the connection (after whatever it sent before). */
    boolean closedByPeer() throws IOException {
        try {
            return in.read() < 0;
        } catch (SocketException e) {
            return true; // reset
        }
    }

    InputStream in() {
        return in;
    }

    private String line() throws IOException {
        StringBuilder sb = new StringBuilder();
        while (true) {
            int c = in.read();
            if (c < 0) throw new EOFException("connection closed after: " + sb);
            if (c == '\n') break;
            sb.append((char) c);
        }
        if (sb.isEmpty() || sb.charAt(sb.length() - 1) != '\r') throw new IOException("line without CR: " + sb);
        return sb.substring(0, sb.length() - 1);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
