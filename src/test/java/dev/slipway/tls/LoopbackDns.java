package dev.slipway.tls;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A tiny DNS server on loopback UDP for the ACME CA under test: an A query gets 127.0.0.1, or the address
 * {@link #answer} set for that name; every other query gets an empty NOERROR answer.
 */
final class LoopbackDns implements AutoCloseable {
    private final DatagramSocket socket;
    private final Thread thread;
    private final Map<String, byte[]> addresses = new ConcurrentHashMap<>();

    private LoopbackDns(DatagramSocket socket) {
        this.socket = socket;
        this.thread = Thread.ofPlatform().daemon().name("loopback-dns").start(this::serve);
    }

    static LoopbackDns start() {
        try {
            return new LoopbackDns(new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)));
        } catch (SocketException e) {
            throw new IllegalStateException("cannot bind the test DNS server", e);
        }
    }

    int port() {
        return socket.getLocalPort();
    }

    String address() {
        return "127.0.0.1:" + socket.getLocalPort();
    }

    /** {@code name} resolves to {@code ipv4} (e.g. 127.0.0.2, where nothing listens). */
    void answer(String name, String ipv4) {
        try {
            addresses.put(name.toLowerCase(Locale.ROOT), InetAddress.getByName(ipv4).getAddress());
        } catch (IOException e) {
            throw new IllegalArgumentException(ipv4, e);
        }
    }

    private void serve() {
        byte[] buf = new byte[512];
        while (!socket.isClosed()) {
            DatagramPacket p = new DatagramPacket(buf, buf.length);
            try {
                socket.receive(p);
                byte[] reply = reply(buf, p.getLength());
                if (reply != null) socket.send(new DatagramPacket(reply, reply.length, p.getSocketAddress()));
            } catch (IOException e) {
                if (socket.isClosed()) return;
            }
        }
    }

    private byte[] reply(byte[] q, int length) {
        if (length < 12) return null;
        int pos = 12;
        StringBuilder name = new StringBuilder();
        while (pos < length && q[pos] != 0) {
            int n = q[pos] & 0xff;
            if (name.length() > 0) name.append('.');
            name.append(new String(q, pos + 1, n, StandardCharsets.US_ASCII));
            pos += n + 1;
        }
        pos++; // the root label
        if (pos + 4 > length) return null;
        int qtype = ((q[pos] & 0xff) << 8) | (q[pos + 1] & 0xff);
        int questionEnd = pos + 4;
        boolean a = qtype == 1;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(q[0]);
        out.write(q[1]);
        out.write(0x84 | (q[2] & 0x01)); // response, authoritative, RD copied
        out.write(0x00);
        out.writeBytes(new byte[]{0, 1, 0, (byte) (a ? 1 : 0), 0, 0, 0, 0});
        out.write(q, 12, questionEnd - 12);
        if (a) {
            byte[] ip = addresses.getOrDefault(name.toString().toLowerCase(Locale.ROOT), new byte[]{127, 0, 0, 1});
            out.writeBytes(new byte[]{(byte) 0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 0, 0, 4});
            out.writeBytes(ip);
        }
        return out.toByteArray();
    }

    @Override
    public void close() {
        socket.close();
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
