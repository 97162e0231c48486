package dev.slipway.client.context;

import java.time.Duration;

/** The end of a command's --timeout, or none. */
public final class Deadline {
    private final Duration limit;
    private final long end;

    private Deadline(Duration limit) {
        this.limit = limit;
        this.end = limit == null ? 0 : System.nanoTime() + limit.toNanos();
    }

    public static Deadline none() {
        return new Deadline(null);
    }

    public static Deadline after(Duration limit) {
        return new Deadline(limit);
    }

    boolean bounded() {
        return limit != null;
    }

    /** What is left; {@code Duration.ZERO} once passed; a very long time without a limit. */
    public Duration remaining() {
        if (limit == null) return Duration.ofDays(365);
        long left = end - System.nanoTime();
        return left <= 0 ? Duration.ZERO : Duration.ofNanos(left);
    }

    public boolean passed() {
        return limit != null && end - System.nanoTime() <= 0;
    }

    /** Throws {@link TimedOut} when passed. */
    public void check(String waitingFor) {
        if (passed()) throw new TimedOut("timed out after " + Durations.format(limit) + " " + waitingFor);
    }

    /** Sleeps {@code d}, or until the deadline and then throws {@link TimedOut}. */
    public void sleep(Duration d, String waitingFor) {
        Duration left = remaining();
        Duration nap = d.compareTo(left) < 0 ? d : left;
        try {
            Thread.sleep(nap);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TimedOut("interrupted " + waitingFor);
        }
        check(waitingFor);
    }

    public Duration limit() {
        return limit;
    }
}
