package dev.slipway.api;

import java.util.Map;

/** An error the API answers with: a status, a stable code, a message for people, and per-field details on 400. */
public final class ApiException extends RuntimeException {
    private final int status;
    private final String code;
    private final Map<String, String> details;
    private final Map<String, String> headers;

    public ApiException(int status, String code, String message, Map<String, String> details, Map<String, String> headers) {
        super(message, null, false, false);
        this.status = status;
        this.code = code;
        this.details = details;
        this.headers = headers;
    }

    public static ApiException invalid(String message, Map<String, String> details) {
        return new ApiException(400, "invalid_request", message, details, Map.of());
    }

    public static ApiException invalidField(String field, String problem) {
        return invalid("Invalid " + field + ": " + problem, Map.of(field, problem));
    }

    public static ApiException unauthorized(String message) {
        return new ApiException(401, "unauthorized", message, null, Map.of());
    }

    public static ApiException forbidden(String message) {
        return new ApiException(403, "forbidden", message, null, Map.of());
    }

    public static ApiException notFound(String message) {
        return new ApiException(404, "not_found", message, null, Map.of());
    }

    public static ApiException invalidState(String message) {
        return new ApiException(409, "invalid_state", message, null, Map.of());
    }

    public int status() { return status; }
    public String code() { return code; }
    public Map<String, String> details() { return details; }
    public Map<String, String> headers() { return headers; }
}
