package dev.slipway.router;

import java.nio.ByteBuffer;

/**
 * Where the relay writes a rewritten head: a direct buffer kept by the connection, so that writing it with the
 * body's bytes (a gathering write from direct buffers) copies nothing in the JDK, and no head costs an allocation.
 */
final class HeadWriter {
    private ByteBuffer out;

    HeadWriter(int capacity) {
        out = ByteBuffer.allocateDirect(capacity);
    }

    /** Starts a head of at most {@code max} bytes (the buffer grows if it must; rare: huge heads). */
    HeadWriter begin(int max) {
        if (out.capacity() < max) out = ByteBuffer.allocateDirect(Math.max(max, out.capacity() * 2));
        out.clear();
        return this;
    }

    HeadWriter put(byte[] bytes) {
        out.put(bytes);
        return this;
    }

    /** Bytes {@code [from, to)} of {@code src}, whose position and limit stay as they are. */
    HeadWriter put(ByteBuffer src, int from, int to) {
        int at = out.position();
        out.put(at, src, from, to - from);
        out.position(at + to - from);
        return this;
    }

    /** Bytes {@code [from, to)} of {@code src} as a quoted-string (RFC 9110 §5.6.4). */
    HeadWriter quoted(ByteBuffer src, int from, int to) {
        out.put((byte) '"');
        for (int i = from; i < to; i++) {
            byte b = src.get(i);
            if (b == '"' || b == '\\') out.put((byte) '\\');
            out.put(b);
        }
        out.put((byte) '"');
        return this;
    }

    /** The head written, ready to be sent: valid until the next {@link #begin}. */
    ByteBuffer done() {
        return out.flip();
    }
}
