package dev.slipway.api;

import io.javalin.http.Context;

/** {@code limit} (1..100, default 20) and {@code cursor} of a list request. */
public record PageRequest(int limit, Cursor after) {
    public static final int DEFAULT_LIMIT = 20;
    public static final int MAX_LIMIT = 100;

    public static PageRequest from(Context ctx) {
        String limitParam = ctx.queryParam("limit");
        int limit = DEFAULT_LIMIT;
        if (limitParam != null) {
            try {
                limit = Integer.parseInt(limitParam.trim());
            } catch (NumberFormatException e) {
                throw ApiException.invalidField("limit", "must be an integer from 1 to " + MAX_LIMIT);
            }
            if (limit < 1 || limit > MAX_LIMIT) {
                throw ApiException.invalidField("limit", "must be an integer from 1 to " + MAX_LIMIT);
            }
        }
        String cursor = ctx.queryParam("cursor");
        return new PageRequest(limit, cursor == null || cursor.isEmpty() ? null : Cursor.decode(cursor));
    }
}
