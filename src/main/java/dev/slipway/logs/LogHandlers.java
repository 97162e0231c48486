package dev.slipway.logs;

import dev.slipway.api.ApiException;
import dev.slipway.store.Page;
import dev.slipway.core.Json;
import io.javalin.http.Context;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * A run's log: {@code {data: {logs: [...]}}} with {@code ?after=<cursor>&limit=} (extras), or with
 * {@code Accept: text/event-stream} a live stream of entries until the run ends.
 */
public final class LogHandlers {
    private static final int DEFAULT_LIMIT = 1000;
    private static final int MAX_LIMIT = 5000;
    private static final long FOLLOW_POLL_MILLIS = 250;
    /**
     * A comment line on a quiet stream this often: a client that went away is noticed (a write fails) instead of its
     * stream being held until the run ends, and proxies that cut idle connections see traffic.
     */
    static final long HEARTBEAT_MILLIS = 5_000;

    private final LogStore logs;
    private volatile boolean closing;

    public LogHandlers(LogStore logs) {
        this.logs = logs;
    }

    public record LogPage(List<LogEntry> logs) {}

    /** Serves the log of {@code ownerId}; {@code finished} tells when a followed run has ended. */
    public void serve(Context ctx, String ownerId, BooleanSupplier finished) throws IOException, InterruptedException {
        long after = cursor(firstNonNull(ctx.queryParam("after"), ctx.header("Last-Event-ID")));
        String accept = ctx.header("Accept");
        if (accept != null && accept.contains("text/event-stream")) {
            follow(ctx, ownerId, after, finished);
            return;
        }
        int limit = limit(ctx.queryParam("limit"));
        List<LogEntry> page = logs.after(ownerId, after, limit + 1);
        boolean more = page.size() > limit;
        if (more) page = page.subList(0, limit);
        String next = page.isEmpty() ? (after > 0 ? encode(after) : null) : encode(page.get(page.size() - 1).seq());
        ctx.json(Map.of("data", new LogPage(page), "pagination", new Page.Pagination(more, next)));
    }

    private void follow(Context ctx, String ownerId, long after, BooleanSupplier finished)
            throws IOException, InterruptedException {
        ctx.status(200);
        ctx.res().setContentType("text/event-stream");
        ctx.res().setCharacterEncoding("utf-8");
        ctx.res().setHeader("Cache-Control", "no-cache");
        ctx.res().setHeader("X-Accel-Buffering", "no");
        OutputStream out = ctx.res().getOutputStream();
        long seq = after;
        long quietSince = System.nanoTime();
        while (!closing) {
            boolean ended = finished.getAsBoolean(); // read before the entries, so none written at the end is missed
            List<LogEntry> entries = logs.after(ownerId, seq, MAX_LIMIT);
            for (LogEntry e : entries) {
                seq = e.seq();
                out.write(("id: " + encode(seq) + "\nevent: log\ndata: " + Json.write(e) + "\n\n").getBytes(StandardCharsets.UTF_8));
            }
            if (ended && entries.isEmpty()) {
                out.write("event: end\ndata: {}\n\n".getBytes(StandardCharsets.UTF_8));
                out.flush();
                return;
            }
            if (!entries.isEmpty()) {
                quietSince = System.nanoTime();
            } else if (System.nanoTime() - quietSince >= HEARTBEAT_MILLIS * 1_000_000) {
                out.write(": keep-alive\n\n".getBytes(StandardCharsets.UTF_8));
                quietSince = System.nanoTime();
            }
            out.flush();
            if (entries.size() < MAX_LIMIT) Thread.sleep(FOLLOW_POLL_MILLIS);
        }
        out.flush(); // the server stops: the stream ends without an end event, and its client resumes after the restart
    }

    /** The server stops: every followed log ends at its next poll. */
    public void close() {
        closing = true;
    }

    private static String firstNonNull(String a, String b) {
        return a != null && !a.isEmpty() ? a : b;
    }

    /** The cursor of an entry: {@code ?after=} or {@code Last-Event-ID} resumes after it. */
    public static String encode(long seq) {
        return "l" + seq;
    }

    static long cursor(String raw) {
        if (raw == null || raw.isEmpty()) return 0;
        try {
            if (raw.startsWith("l")) {
                long v = Long.parseLong(raw.substring(1));
                if (v >= 0) return v;
            }
        } catch (NumberFormatException ignored) {
            // falls through to the error
        }
        throw ApiException.invalidField("after", "is not a log cursor returned by this API");
    }

    static int limit(String raw) {
        return dev.slipway.api.Paging.limit(raw, DEFAULT_LIMIT, MAX_LIMIT);
    }
}
