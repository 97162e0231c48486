package dev.slipway.router;

import java.nio.ByteBuffer;

/**
 * Where a message body ends, found while its bytes pass through unchanged: a length, chunked coding (the
 * chunk sizes, extensions and trailers checked strictly), or the connection's end. The relay never decodes a
 * body; it only needs to know how many of the bytes it holds belong to the current message.
 */
final class RelayFraming {
    private static final int MAX_LINE = 4096;
    private static final int MAX_TRAILERS = RelayHead.MAX_HEAD;

    private enum State { LENGTH, SIZE, EXT, SIZE_LF, DATA, DATA_CR, DATA_LF, TRAILER_START, TRAILER, TRAILER_LF, END_LF, UNTIL_CLOSE, DONE }

    static final class Malformed extends Exception {
        Malformed(String message) {
            super(message, null, false, false);
        }
    }

    private State state;
    private long remaining;
    private int digits;
    private int lineBytes;
    private int trailerBytes;

    /** A framing to be set with one of the {@code to…} methods, reused from message to message. */
    RelayFraming() {
        this.state = State.DONE;
    }

    RelayFraming toNone() {
        return to(State.DONE, 0);
    }

    RelayFraming toLength(long length) {
        return to(length == 0 ? State.DONE : State.LENGTH, length);
    }

    RelayFraming toChunked() {
        return to(State.SIZE, 0);
    }

    RelayFraming toUntilClose() {
        return to(State.UNTIL_CLOSE, 0);
    }

    private RelayFraming to(State state, long remaining) {
        this.state = state;
        this.remaining = remaining;
        digits = 0;
        lineBytes = 0;
        trailerBytes = 0;
        return this;
    }

    boolean done() {
        return state == State.DONE;
    }

    boolean untilClosed() {
        return state == State.UNTIL_CLOSE;
    }

    /**
     * Accepts bytes {@code [from, to)} of the buffer as far as they belong to this message; returns how many.
     * Fewer than offered only when the message ended.
     */
    int scan(ByteBuffer buf, int from, int to) throws Malformed {
        int i = from;
        while (i < to && state != State.DONE) {
            switch (state) {
                case LENGTH -> {
                    int n = (int) Math.min(remaining, to - i);
                    i += n;
                    remaining -= n;
                    if (remaining == 0) state = State.DONE;
                }
                case UNTIL_CLOSE -> i = to;
                case DATA -> {
                    int n = (int) Math.min(remaining, to - i);
                    i += n;
                    remaining -= n;
                    if (remaining == 0) state = State.DATA_CR;
                }
                default -> step(buf.get(i++));
            }
        }
        return i - from;
    }

    private void step(byte b) throws Malformed {
        switch (state) {
            case SIZE -> {
                int d = Character.digit(b, 16);
                if (d >= 0) {
                    if (++digits > 15) throw new Malformed("chunk size too large");
                    remaining = remaining * 16 + d;
                } else if (digits == 0) {
                    throw new Malformed("chunk size expected");
                } else if (b == ';' || b == ' ' || b == '\t') {
                    state = State.EXT;
                    lineBytes = 0;
                } else if (b == '\r') {
                    state = State.SIZE_LF;
                } else {
                    throw new Malformed("bad chunk size");
                }
            }
            case EXT -> {
                if (b == '\r') state = State.SIZE_LF;
                else if (b == '\n' || (b < ' ' && b != '\t') || b == 0x7f) throw new Malformed("bad chunk extension");
                else if (++lineBytes > MAX_LINE) throw new Malformed("chunk extension too long");
            }
            case SIZE_LF -> {
                if (b != '\n') throw new Malformed("bare CR after a chunk size");
                digits = 0;
                if (remaining == 0) {
                    state = State.TRAILER_START;
                } else {
                    state = State.DATA;
                }
            }
            case DATA_CR -> {
                if (b != '\r') throw new Malformed("chunk longer than its size");
                state = State.DATA_LF;
            }
            case DATA_LF -> {
                if (b != '\n') throw new Malformed("bare CR after chunk data");
                state = State.SIZE;
                remaining = 0;
            }
            case TRAILER_START -> {
                if (b == '\r') {
                    state = State.END_LF;
                } else if (b == ' ' || b == '\t' || b == '\n' || b == ':') {
                    throw new Malformed("bad trailer");
                } else {
                    state = State.TRAILER;
                    trailer();
                }
            }
            case TRAILER -> {
                if (b == '\r') state = State.TRAILER_LF;
                else if (b == '\n' || (b < ' ' && b != '\t') || b == 0x7f) throw new Malformed("bad trailer");
                else trailer();
            }
            case TRAILER_LF -> {
                if (b != '\n') throw new Malformed("bare CR in trailers");
                state = State.TRAILER_START;
            }
            case END_LF -> {
                if (b != '\n') throw new Malformed("bare CR after the last chunk");
                state = State.DONE;
            }
            default -> throw new IllegalStateException(state.name());
        }
    }

    private void trailer() throws Malformed {
        if (++trailerBytes > MAX_TRAILERS) throw new Malformed("trailers too large");
    }
}
