package dev.slipway.runtime;

import dev.slipway.logs.HeldLine;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;
import dev.slipway.logs.Masker;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * Copies one output stream of an app to its log, line by line as the lines come (each held until the next
 * arrives, at most {@link HeldLine#HOLD_MILLIS}), secrets masked, also where one spans two lines.
 * A local process's stdout and stderr, and a Kubernetes pod's log stream ({@link #copy}), go the same way.
 */
public final class OutputPump implements Runnable {
    public static final int MAX_LINE = 16 * 1024;

    private final InputStream in;
    private final Masker mask;
    private final HeldLine held;

    private OutputPump(InputStream in, LogSink log, Masker mask, Consumer<String> seen) {
        this.in = in;
        this.mask = mask;
        this.held = new HeldLine(mask, masked -> {
            seen.accept(masked);
            log.log(Level.INFO, masked);
        });
    }

    /**
     * Copies {@code in} to {@code log} on a virtual thread of its own.
     *
     * @param seen also told each line, masked, before the log (the local runtime keeps the last few for the
     *             message of a failed start)
     */
    public static Thread start(String name, InputStream in, LogSink log, Masker mask, Consumer<String> seen) {
        return Thread.ofVirtual().name(name).start(new OutputPump(in, log, mask, seen));
    }

    /**
     * Lines fed in pieces ({@link #feed}, then {@link #end}) rather than read from a stream: an output file that a
     * follower reads as it grows.
     */
    public static OutputPump lines(LogSink log, Masker mask, Consumer<String> seen) {
        return new OutputPump(null, log, mask, seen);
    }

    /** Copies {@code in} to {@code log} on the calling thread until it ends or is closed. */
    public static void copy(InputStream in, LogSink log, Masker mask) {
        new OutputPump(in, log, mask, line -> { }).run();
    }

    private final ByteArrayOutputStream line = new ByteArrayOutputStream();

    @Override
    public void run() {
        byte[] buffer = new byte[8192];
        try (in) {
            int n;
            while ((n = in.read(buffer)) != -1) feed(buffer, n);
        } catch (IOException ignored) {
            // the process went away: the pipe is closed
        } finally {
            end();
        }
    }

    /** The next {@code n} bytes of the output. */
    public void feed(byte[] buffer, int n) {
        for (int i = 0; i < n; i++) {
            byte b = buffer[i];
            if (b == '\n') {
                emit(line);
            } else {
                line.write(b);
                if (line.size() >= MAX_LINE) emitCut(line); // a line without end must not grow without bound
            }
        }
    }

    /** The output ended (or is left for now): the unfinished line and the held one are logged. */
    public void end() {
        if (line.size() > 0) emit(line);
        held.flush();
    }

    /** Emits a too-long line up to a point that splits no secret; the rest starts the next chunk. */
    private void emitCut(ByteArrayOutputStream bytes) {
        String text = bytes.toString(StandardCharsets.UTF_8);
        int cut = mask.safeCut(text);
        if (cut == 0) cut = text.length(); // a secret longer than a whole chunk: it cannot be kept apart
        bytes.reset();
        held.add(text.substring(0, cut));
        bytes.writeBytes(text.substring(cut).getBytes(StandardCharsets.UTF_8));
    }

    private void emit(ByteArrayOutputStream bytes) {
        String text = bytes.toString(StandardCharsets.UTF_8);
        bytes.reset();
        if (text.endsWith("\r")) text = text.substring(0, text.length() - 1);
        held.add(text); // masked on its way out, with the next line's start in view
    }
}
