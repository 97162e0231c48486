package dev.slipway.webhooks;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.core.Json;

import java.util.Map;
import java.util.Set;

/**
 * How an endpoint's deliveries are written: {@code slipway}, the signed event as stored; {@code slack} and
 * {@code discord}, one line a person reads, in the body their incoming webhooks take ({@code {"text"}} and
 * {@code {"content"}}). The line is made from the stored event when it is sent.
 */
public final class ChatFormat {
    public static final String SLIPWAY = "slipway";
    public static final String SLACK = "slack";
    public static final String DISCORD = "discord";
    public static final Set<String> ALL = Set.of(SLIPWAY, SLACK, DISCORD);
    /** Discord refuses longer content. */
    private static final int MAX_TEXT = 1900;

    private ChatFormat() {}

    /** The body to send for the stored event {@code payload}. */
    static String body(String format, String payload) {
        if (format == null || SLIPWAY.equals(format)) return payload;
        String text = text(payload);
        if (text.length() > MAX_TEXT) text = text.substring(0, MAX_TEXT) + "…";
        return Json.write(Map.of(SLACK.equals(format) ? "text" : "content", text));
    }

    /** One line about the event: its own {@code summary} when it has one, else made from its type and resource. */
    static String text(String payload) {
        try {
            JsonNode event = Json.MAPPER.readTree(payload);
            String type = event.path("type").asText();
            JsonNode data = event.path("data");
            if (data.hasNonNull("summary")) return data.get("summary").asText();
            if (type.startsWith("deployment.")) {
                String error = data.hasNonNull("error") ? ": " + data.get("error").asText() : "";
                String url = data.hasNonNull("url") ? " " + data.get("url").asText() : "";
                return "Deployment " + data.path("id").asText() + " of " + data.path("project_name").asText(data.path("project_id").asText())
                        + " is " + data.path("status").asText(type.substring("deployment.".length())) + error + url;
            }
            if (data.hasNonNull("message")) return type + ": " + data.get("message").asText();
            return type + (data.hasNonNull("id") ? " " + data.get("id").asText() : "");
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            return "Slipway event";
        }
    }
}
