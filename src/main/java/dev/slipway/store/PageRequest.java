package dev.slipway.store;


/** {@code limit} (1..100, default 20) and {@code cursor} of a list request ({@code api.Paging} reads them from a request). */
public record PageRequest(int limit, Cursor after) {
    public static final int DEFAULT_LIMIT = 20;
    public static final int MAX_LIMIT = 100;
}
