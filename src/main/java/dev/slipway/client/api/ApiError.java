package dev.slipway.client.api;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.LinkedHashMap;
import java.util.Map;

/** The API answered with an error (or could not be reached after the retries): exit 4. */
public final class ApiError extends RuntimeException {
    private final int status;
    private final String code;
    private final String requestId;
    private final Map<String, String> details;

    ApiError(int status, String code, String message, String requestId, Map<String, String> details) {
        super(message);
        this.status = status;
        this.code = code;
        this.requestId = requestId;
        this.details = details;
    }

    /** From an error answer: the API's {@code {"error": {code, message, request_id, details}}}, or what there is. */
    static ApiError of(int status, String body, String requestIdHeader) {
        try {
            JsonNode error = JsonTrees.MAPPER.readTree(body).path("error");
            if (error.hasNonNull("code")) {
                Map<String, String> details = new LinkedHashMap<>();
                error.path("details").properties().forEach(e -> details.put(e.getKey(), e.getValue().asText()));
                return new ApiError(status, error.get("code").asText(), error.path("message").asText(""),
                        error.hasNonNull("request_id") ? error.get("request_id").asText() : requestIdHeader, details);
            }
        } catch (Exception notJson) {
            // a proxy's page or an empty body: shown as it is, shortened
        }
        String text = body == null ? "" : body.strip();
        if (text.length() > 200) text = text.substring(0, 200) + "…";
        return new ApiError(status, "http_" + status, text.isEmpty() ? "HTTP " + status : text, requestIdHeader, Map.of());
    }

    public static ApiError unreachable(String message) {
        return new ApiError(0, "unreachable", message, null, Map.of());
    }

    public int status() { return status; }
    public String code() { return code; }
    public String requestId() { return requestId; }
    public Map<String, String> details() { return details; }
}
