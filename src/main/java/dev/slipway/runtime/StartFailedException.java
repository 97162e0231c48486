package dev.slipway.runtime;

/** The app did not become healthy; the message says why in words a user can act on. */
public final class StartFailedException extends RuntimeException {
    public StartFailedException(String message) {
        super(message);
    }

    public StartFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
