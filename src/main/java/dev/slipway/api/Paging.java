package dev.slipway.api;

import dev.slipway.store.Cursor;
import dev.slipway.store.PageRequest;
import io.javalin.http.Context;

/** A list request's {@code limit} and {@code cursor}, read from its query; a bad one is a 400 naming it. */
public final class Paging {
    private Paging() {}

    public static PageRequest request(Context ctx) {
        String limitParam = ctx.queryParam("limit");
        int limit = PageRequest.DEFAULT_LIMIT;
        if (limitParam != null) {
            try {
                limit = Integer.parseInt(limitParam.trim());
            } catch (NumberFormatException e) {
                throw ApiException.invalidField("limit", "must be an integer from 1 to " + PageRequest.MAX_LIMIT);
            }
            if (limit < 1 || limit > PageRequest.MAX_LIMIT) {
                throw ApiException.invalidField("limit", "must be an integer from 1 to " + PageRequest.MAX_LIMIT);
            }
        }
        String cursor = ctx.queryParam("cursor");
        if (cursor == null || cursor.isEmpty()) return new PageRequest(limit, null);
        try {
            return new PageRequest(limit, Cursor.decode(cursor));
        } catch (IllegalArgumentException e) {
            throw ApiException.invalidField("cursor", e.getMessage());
        }
    }
}
