package dev.slipway.client.context;

/** A usage error found before anything is sent: exit 2. */
public final class UsageException extends RuntimeException {
    public UsageException(String message) {
        super(message);
    }
}
