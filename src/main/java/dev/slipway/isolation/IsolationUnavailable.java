package dev.slipway.isolation;

/** {@code --isolation=sandbox} on a machine that cannot sandbox: the server does not start. */
public final class IsolationUnavailable extends RuntimeException {
    public IsolationUnavailable(String message) {
        super(message);
    }
}
