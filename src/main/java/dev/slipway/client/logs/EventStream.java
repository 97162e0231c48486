package dev.slipway.client.logs;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.function.Predicate;

/** Reads server-sent events ({@code id:}, {@code event:}, {@code data:} lines, a blank line ends each). */
final class EventStream {
    record Event(String id, String type, String data) {}

    private EventStream() {}

    /**
     * Hands each event to {@code handler} until it returns false (true is returned then) or the stream
     * ends (false).
     */
    static boolean read(InputStream in, Predicate<Event> handler) throws IOException {
        BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        String id = null;
        String type = null;
        StringBuilder data = null;
        String line;
        while ((line = reader.readLine()) != null) {
            if (line.isEmpty()) {
                if (data != null || type != null) {
                    if (!handler.test(new Event(id, type == null ? "message" : type, data == null ? "" : data.toString()))) {
                        return true;
                    }
                }
                id = null;
                type = null;
                data = null;
                continue;
            }
            if (line.startsWith(":")) continue; // a comment
            int colon = line.indexOf(':');
            String field = colon < 0 ? line : line.substring(0, colon);
            String value = colon < 0 ? "" : line.substring(colon + 1);
            if (value.startsWith(" ")) value = value.substring(1);
            switch (field) {
                case "id" -> id = value;
                case "event" -> type = value;
                case "data" -> data = data == null ? new StringBuilder(value) : data.append('\n').append(value);
                default -> { } // retry and unknown fields
            }
        }
        return false;
    }
}
