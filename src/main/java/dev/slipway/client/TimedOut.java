package dev.slipway.client;

/** The command's --timeout passed: exit 3. */
final class TimedOut extends RuntimeException {
    TimedOut(String message) {
        super(message);
    }
}
