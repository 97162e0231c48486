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
    /** A mail to the endpoint's mailto: address: the line as its subject, and the event below it. */
    public static final String EMAIL = "email";
    public static final Set<String> ALL = Set.of(SLIPWAY, SLACK, DISCORD, EMAIL);
    private static final int MAX_SUBJECT = 150;
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

    /** The subject of the mail of an {@code email} endpoint. */
    static String subject(String payload) {
        String line = text(payload).replaceAll("[\\r\\n]+", " ");
        return "[Slipway] " + (line.length() > MAX_SUBJECT ? line.substring(0, MAX_SUBJECT) + "…" : line);
    }

    /** The text of that mail: the line, then the event as it is stored. */
    static String mailText(String payload) {
        String pretty;
        try {
            pretty = Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(Json.MAPPER.readTree(payload));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            pretty = payload;
        }
        return text(payload) + "\n\n" + pretty + "\n";
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
