package dev.slipway.client.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.slipway.client.context.UsageException;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** A list of the API: one page of {@code --limit}, or with {@code --all} every page, following the cursors. */
public final class Pages {
    static final int MAX_LIMIT = 100;

    public record Result(ArrayNode items, boolean more) {}

    private Pages() {}

    public static Result fetch(Api api, String path, Map<String, String> query, Integer limit, boolean all) {
        int size = limit != null ? limit : all ? MAX_LIMIT : 20;
        if (size < 1 || size > MAX_LIMIT) throw new UsageException("--limit must be from 1 to " + MAX_LIMIT + ", not " + size);
        ArrayNode items = JsonTrees.MAPPER.createArrayNode();
        Set<String> cursors = new HashSet<>();
        String cursor = null;
        while (true) {
            Map<String, String> q = new LinkedHashMap<>(query);
            q.put("limit", Integer.toString(size));
            if (cursor != null) q.put("cursor", cursor);
            StringBuilder url = new StringBuilder(path);
            char sep = '?';
            for (var e : q.entrySet()) {
                url.append(sep).append(e.getKey()).append('=').append(Paths.query(e.getValue()));
                sep = '&';
            }
            JsonNode page = api.get(url.toString());
            if (!(page.path("data") instanceof ArrayNode data)) {
                throw new ApiError(0, "invalid_response", "the answer of GET " + path + " has no data list", null, Map.of());
            }
            items.addAll(data);
            JsonNode pagination = page.path("pagination");
            boolean more = pagination.path("has_more").asBoolean(false) && pagination.hasNonNull("next_cursor");
            if (!more) return new Result(items, false);
            if (!all) return new Result(items, true);
            cursor = pagination.get("next_cursor").asText();
            if (!cursors.add(cursor)) throw ApiError.unreachable("the API returned the same cursor twice; stopping");
        }
    }
}
