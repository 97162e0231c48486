package dev.slipway.store;

import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.Query;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Keyset pagination shared by every list: rows ordered by (created_at, id) descending, the page
 * after a cursor found with a row comparison the index serves, never OFFSET.
 */
public final class Keyset {
    private Keyset() {}

    /**
     * @param table   the table to read (a constant, never input)
     * @param filters SQL conditions on bound parameters (constants, never input)
     * @param binds   values for the filters' parameters
     */
    public static <T> Page<T> page(Handle handle, String table, List<String> filters, Map<String, Object> binds,
                                   PageRequest request, RowMapper<T> mapper,
                                   Function<T, Instant> createdAt, Function<T, String> id) {
        List<String> where = new ArrayList<>(filters);
        if (request.after() != null) where.add("(created_at, id) < (:cursor_at, :cursor_id)");
        String sql = "SELECT * FROM " + table
                + (where.isEmpty() ? "" : " WHERE " + String.join(" AND ", where))
                + " ORDER BY created_at DESC, id DESC LIMIT :page_limit";
        Query query = handle.createQuery(sql).bindMap(binds).bind("page_limit", request.limit() + 1);
        if (request.after() != null) {
            query.bind("cursor_at", request.after().createdAt()).bind("cursor_id", request.after().id());
        }
        List<T> rows = query.map(mapper).list();
        boolean hasMore = rows.size() > request.limit();
        if (hasMore) rows = rows.subList(0, request.limit());
        String next = null;
        if (hasMore) {
            T last = rows.get(rows.size() - 1);
            next = new Cursor(createdAt.apply(last), id.apply(last)).encode();
        }
        return new Page<>(List.copyOf(rows), new Page.Pagination(hasMore, next));
    }
}
