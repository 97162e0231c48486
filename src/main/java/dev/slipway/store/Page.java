package dev.slipway.store;

import java.util.List;

/** One page of a list, newest first, and where the next one starts. */
public record Page<T>(List<T> data, Pagination pagination) {
    public record Pagination(boolean hasMore, String nextCursor) {}
}
