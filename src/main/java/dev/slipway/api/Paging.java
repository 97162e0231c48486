package dev.slipway.api;

import dev.slipway.store.Cursor;
import dev.slipway.store.PageRequest;
import io.javalin.http.Context;

/** A list request's {@code limit} and {@code cursor}, read from its query; a bad one is a 400 naming it. */
public final class Paging {
    private Paging() {}

    /** A {@code limit} query parameter: {@code fallback} when absent, else 1 to {@code max}; a 400 naming it otherwise. */
    public static int limit(String raw, int fallback, int max) {
        if (raw == null || raw.isEmpty()) return fallback;
        try {
            int v = Integer.parseInt(raw.trim());
            if (v >= 1 && v <= max) return v;
        } catch (NumberFormatException ignored) {
            // falls through to the error
        }
        throw ApiException.invalidField("limit", "must be an integer from 1 to " + max);
    }

    public static PageRequest request(Context ctx) {
        int limit = limit(ctx.queryParam("limit"), PageRequest.DEFAULT_LIMIT, PageRequest.MAX_LIMIT);
        String cursor = ctx.queryParam("cursor");
        if (cursor == null || cursor.isEmpty()) return new PageRequest(limit, null);
        try {
            return new PageRequest(limit, Cursor.decode(cursor));
        } catch (IllegalArgumentException e) {
            throw ApiException.invalidField("cursor", e.getMessage());
        }
    }
}
