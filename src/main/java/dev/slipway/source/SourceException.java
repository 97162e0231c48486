package dev.slipway.source;

import dev.slipway.api.ApiException;

import java.util.Map;

/**
 * A source that cannot be fetched or unpacked, with a message meant for the user (it ends up in the
 * deployment's logs or in a 400): never a stack trace, never a credential.
 */
public final class SourceException extends RuntimeException {
    public enum Reason {
        INVALID_INPUT, REPO_NOT_FOUND, BRANCH_NOT_FOUND, COMMIT_NOT_FOUND, HOST_UNREACHABLE, TIMEOUT, TOO_LARGE,
        UNSAFE_ZIP, FAILED
    }

    private final Reason reason;

    public SourceException(Reason reason, String message) {
        super(message, null, false, false);
        this.reason = reason;
    }

    public Reason reason() { return reason; }

    /** True when the caller's input is at fault (a 400), false for the host or the network. */
    public boolean isUserError() {
        return reason != Reason.HOST_UNREACHABLE && reason != Reason.TIMEOUT && reason != Reason.FAILED;
    }

    /** The same message as a 400 {@code invalid_request}, for handlers that check a source synchronously. */
    public ApiException toApiException(String field) {
        return ApiException.invalid(getMessage(), field == null ? null : Map.of(field, getMessage()));
    }
}
