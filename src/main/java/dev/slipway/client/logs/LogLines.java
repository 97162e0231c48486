package dev.slipway.client.logs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.slipway.client.api.Api;
import dev.slipway.client.api.JsonTrees;
import dev.slipway.client.api.Paths;
import dev.slipway.client.api.RunKind;
import dev.slipway.client.output.Printable;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.function.Consumer;

/** A run's log: its entries as {@code timestamp level message} lines, all pages of it, or its last lines. */
public final class LogLines {
    static final int PAGE = 5000;

    private LogLines() {}

    /** One entry as a terminal line; the app's text cannot act on the terminal ({@link Printable}). */
    public static String format(JsonNode entry) {
        return Printable.of(JsonTrees.text(entry, "timestamp") + " " + String.format("%-7s", JsonTrees.text(entry, "level")) + " "
                + JsonTrees.text(entry, "message"));
    }

    /** Every entry, oldest first, page by page. */
    static void each(Api api, RunKind kind, String id, Consumer<JsonNode> sink) {
        String cursor = null;
        while (true) {
            JsonNode page = api.get(kind.path(id) + "/logs?limit=" + PAGE + (cursor == null ? "" : "&after=" + Paths.query(cursor)));
            page.path("data").path("logs").forEach(sink);
            JsonNode next = page.path("pagination").path("next_cursor");
            if (!page.path("pagination").path("has_more").asBoolean() || next.isNull() || next.asText().equals(cursor)) return;
            cursor = next.asText();
        }
    }

    static ArrayNode all(Api api, RunKind kind, String id) {
        ArrayNode out = JsonTrees.MAPPER.createArrayNode();
        each(api, kind, id, out::add);
        return out;
    }

    public static List<String> last(Api api, RunKind kind, String id, int n) {
        Deque<String> tail = new ArrayDeque<>();
        each(api, kind, id, e -> {
            tail.addLast(format(e));
            if (tail.size() > n) tail.removeFirst();
        });
        return List.copyOf(tail);
    }
}
