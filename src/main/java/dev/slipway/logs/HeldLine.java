package dev.slipway.logs;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One output stream's lines on their way to the log. A line that ends with the start of a secret is held
 * until the next arrives (at most {@link #HOLD_MILLIS}), so that a secret split over the end of one line
 * and the start of the next is masked in both; any other line goes out at once, and the next line's start
 * is still checked against its end (at most one character of a secret split there was shown). Lines reach
 * {@code out} in order, without control sequences, masked.
 */
public final class HeldLine {
    public static final long HOLD_MILLIS = 50;
    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("held-log-lines").factory());

    private final Masker masker;
    private final Consumer<String> out;
    private String held;
    private String lastTail;
    private long heldSince;
    private boolean timerSet;

    public HeldLine(Masker masker, Consumer<String> out) {
        this.masker = masker;
        this.out = out;
    }

    /** A line of output, cleaned of control sequences ({@link LogText}) before anything else. */
    public synchronized void add(String line) {
        line = LogText.clean(line);
        if (held != null) {
            String[] pair = masker.maskAcross(held, line);
            emit(pair[0]);
            held = null;
            line = pair[1];
        } else if (lastTail != null) {
            line = masker.maskAcross(lastTail, line)[1];
        }
        if (!masker.mayContinue(line)) {
            emit(line);
            return;
        }
        held = line;
        heldSince = System.nanoTime();
        if (!timerSet) {
            timerSet = true;
            TIMER.schedule(this::expire, HOLD_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    /** The held line goes out now (the stream ended). */
    public synchronized void flush() {
        if (held != null) emit(held);
        held = null;
    }

    private synchronized void expire() {
        timerSet = false;
        if (held == null) return;
        long waited = (System.nanoTime() - heldSince) / 1_000_000;
        if (waited >= HOLD_MILLIS) {
            flush();
        } else {
            timerSet = true;
            TIMER.schedule(this::expire, HOLD_MILLIS - waited, TimeUnit.MILLISECONDS);
        }
    }

    private void emit(String line) {
        lastTail = masker.tail(line);
        try {
            out.accept(masker.mask(line));
        } catch (RuntimeException e) {
            // a failing sink must not stop the stream's reader: the process would block on a full pipe
        }
    }
}
