package dev.slipway.api;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.Map;

/** {@code {"error": {code, message, request_id, details?}}}. */
public record ErrorBody(Error error) {
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Error(String code, String message, String requestId, Map<String, String> details) {}

    public static ErrorBody of(String code, String message, String requestId, Map<String, String> details) {
        return new ErrorBody(new Error(code, message, requestId, details == null || details.isEmpty() ? null : details));
    }
}
