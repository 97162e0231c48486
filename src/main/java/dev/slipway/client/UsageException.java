package dev.slipway.client;

/** A usage error found before anything is sent: exit 2. */
final class UsageException extends RuntimeException {
    UsageException(String message) {
        super(message);
    }
}
