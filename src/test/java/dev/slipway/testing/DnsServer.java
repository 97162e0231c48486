package dev.slipway.testing;

import java.util.Arrays;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.TXTRecord;
import org.xbill.DNS.Type;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A DNS server on a loopback UDP port for tests, answering TXT and A questions from what the test published
 * (NXDOMAIN for any other name) with dnsjava's message classes. {@link #silent()} starts one that never answers,
 * as a dead server; {@link #at} one on a given address and port (a resolver at 127.0.0.53:53, or on a private
 * network the test made).
 */
public final class DnsServer implements AutoCloseable {
    private final DatagramSocket socket;
    private final boolean answers;
    private final Map<String, List<String>> txt = new ConcurrentHashMap<>();
    private final Map<String, InetAddress> a = new ConcurrentHashMap<>();
    private final AtomicInteger questions = new AtomicInteger();
    private final Thread thread;

    private DnsServer(boolean answers, InetSocketAddress at) {
        try {
            socket = new DatagramSocket(at);
        } catch (SocketException e) {
            throw new IllegalStateException("no UDP port " + at + " for the test DNS server", e);
        }
        this.answers = answers;
        thread = Thread.ofPlatform().daemon().name("test-dns").start(this::serve);
    }

    public static DnsServer start() {
        return new DnsServer(true, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    }

    /** Takes questions and never answers. */
    public static DnsServer silent() {
        return new DnsServer(false, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    }

    public static DnsServer at(InetSocketAddress address) {
        return new DnsServer(true, address);
    }

    public InetSocketAddress address() {
        return (InetSocketAddress) socket.getLocalSocketAddress();
    }

    /** Publishes the TXT values of a name (replacing earlier ones); none removes the name. */
    public void txt(String name, String... values) {
        String key = key(name);
        if (values.length == 0) txt.remove(key);
        else txt.put(key, List.of(values));
    }

    /** Publishes the IPv4 address of a name. */
    public void a(String name, String ipv4) {
        try {
            a.put(key(name), InetAddress.getByName(ipv4));
        } catch (IOException e) {
            throw new IllegalArgumentException(ipv4, e);
        }
    }

    public int questions() {
        return questions.get();
    }

    private void serve() {
        byte[] buffer = new byte[4096];
        while (!socket.isClosed()) {
            DatagramPacket in = new DatagramPacket(buffer, buffer.length);
            try {
                socket.receive(in);
                questions.incrementAndGet();
                if (!answers) continue;
                Message query = new Message(Arrays.copyOf(in.getData(), in.getLength()));
                byte[] out = answer(query).toWire(512);
                socket.send(new DatagramPacket(out, out.length, in.getSocketAddress()));
            } catch (IOException e) {
                if (socket.isClosed()) return;
            }
        }
    }

    private Message answer(Message query) throws IOException {
        Message response = new Message(query.getHeader().getID());
        response.getHeader().setFlag(Flags.QR);
        response.getHeader().setFlag(Flags.AA);
        if (query.getHeader().getFlag(Flags.RD)) response.getHeader().setFlag(Flags.RD);
        Record question = query.getQuestion();
        if (question == null) {
            response.getHeader().setRcode(Rcode.FORMERR);
            return response;
        }
        response.addRecord(question, Section.QUESTION);
        Name name = question.getName();
        InetAddress address = a.get(key(name.toString()));
        if (address != null) {
            if (question.getType() == Type.A) response.addRecord(new ARecord(name, DClass.IN, 60, address), Section.ANSWER);
            return response;
        }
        List<String> values = txt.get(key(name.toString()));
        if (values == null) {
            response.getHeader().setRcode(Rcode.NXDOMAIN);
            return response;
        }
        if (question.getType() == Type.TXT) {
            for (String v : values) response.addRecord(new TXTRecord(name, DClass.IN, 60, v), Section.ANSWER);
        }
        return response;
    }

    private static String key(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return n.endsWith(".") ? n.substring(0, n.length() - 1) : n;
    }

    @Override
    public void close() {
        socket.close();
        try {
            thread.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
