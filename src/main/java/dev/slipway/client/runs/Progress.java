package dev.slipway.client.runs;

import dev.slipway.client.context.Context;
import dev.slipway.client.context.Durations;

import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * What a waiting command shows while it waits, on stderr: on a terminal one status line redrawn in
 * place with the time elapsed; otherwise (CI logs) a timestamped line per change of status.
 */
abstract class Progress implements AutoCloseable {
    abstract void status(String text);

    @Override
    public abstract void close();

    static Progress of(Context ctx) {
        return ctx.terminal() ? new Live(ctx.err()) : new Plain(ctx.err());
    }

    /** One line per change: {@code 2025-06-01T12:00:03Z deployment dep_… building}. */
    static final class Plain extends Progress {
        private final PrintStream err;
        private String last;

        Plain(PrintStream err) {
            this.err = err;
        }

        @Override
        void status(String text) {
            if (text.equals(last)) return;
            last = text;
            err.println(Instant.now().truncatedTo(ChronoUnit.SECONDS) + " " + text);
        }

        @Override
        public void close() {
            // every line is complete already
        }
    }

    /** One line, redrawn every second: {@code ⠹ deployment dep_… building  1m05s}. */
    static final class Live extends Progress {
        private static final String SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";
        private final PrintStream err;
        private final long started = System.nanoTime();
        private final Thread ticker;
        private volatile String text = "";
        private volatile boolean stopped;

        Live(PrintStream err) {
            this.err = err;
            this.ticker = Thread.ofVirtual().name("slipway-status-line").start(() -> {
                int frame = 0;
                while (!stopped) {
                    draw(SPINNER.charAt(frame++ % SPINNER.length()));
                    try {
                        Thread.sleep(Duration.ofMillis(250));
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
        }

        @Override
        void status(String text) {
            this.text = text;
        }

        private synchronized void draw(char mark) {
            if (stopped || text.isEmpty()) return;
            err.print("\r\033[2K" + mark + " " + text + "  " + Durations.format(Duration.ofNanos(System.nanoTime() - started)));
            err.flush();
        }

        @Override
        public void close() {
            synchronized (this) {
                stopped = true;
                err.print("\r\033[2K");
                err.flush();
            }
            ticker.interrupt();
        }
    }
}
