package dev.slipway.client.context;

/** The command's --timeout passed: exit 3. */
public final class TimedOut extends RuntimeException {
    public TimedOut(String message) {
        super(message);
    }
}
