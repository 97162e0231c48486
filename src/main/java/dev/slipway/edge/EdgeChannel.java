package dev.slipway.edge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.slipway.core.Json;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.function.Consumer;

/** One connection between the server and its edge: JSON objects, one per line, each way. */
final class EdgeChannel implements AutoCloseable {
    /** A line longer than this is not a message of ours: the connection is dropped. */
    private static final int MAX_LINE = 16 * 1024 * 1024;

    private final SocketChannel channel;
    private final BufferedReader in;
    private final OutputStream out;

    EdgeChannel(SocketChannel channel) {
        this.channel = channel;
        this.in = new BufferedReader(new InputStreamReader(Channels.newInputStream(channel), StandardCharsets.UTF_8));
        this.out = Channels.newOutputStream(channel);
    }

    static EdgeChannel connect(Path socket) throws IOException {
        SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            ch.connect(UnixDomainSocketAddress.of(socket));
        } catch (IOException e) {
            ch.close();
            throw e;
        }
        return new EdgeChannel(ch);
    }

    synchronized void send(ObjectNode message) throws IOException {
        byte[] line = (Json.MAPPER.writeValueAsString(message) + "\n").getBytes(StandardCharsets.UTF_8);
        out.write(line);
        out.flush();
    }

    /** The next message; null when the other side closed the connection. */
    JsonNode read() throws IOException {
        String line = in.readLine();
        if (line == null) return null;
        if (line.length() > MAX_LINE) throw new IOException("message too long");
        return Json.MAPPER.readTree(line);
    }

    /** Reads messages on a thread of its own until the connection ends, then runs {@code closed}. */
    Thread readAll(String name, Consumer<JsonNode> handler, Runnable closed) {
        return Thread.ofPlatform().daemon().name(name).start(() -> {
            try {
                JsonNode m;
                while ((m = read()) != null) handler.accept(m);
            } catch (IOException | RuntimeException e) {
                // the other side went away, or sent what is not ours: the connection ends
            } finally {
                close();
                closed.run();
            }
        });
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
