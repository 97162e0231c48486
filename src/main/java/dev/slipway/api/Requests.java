package dev.slipway.api;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.slipway.auth.Principal;
import dev.slipway.core.Json;
import io.javalin.http.Context;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.server.Request;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeoutException;

/** Reading what a request carries: the caller, and a bounded, typed body. */
public final class Requests {
    static final String PRINCIPAL = "slipway.principal";
    public static final String REQUEST_ID = "slipway.request_id";
    /** The client's address: the connection's peer, or behind a trusted proxy the address it forwarded. */
    public static final String CLIENT = "slipway.client";
    /** The largest JSON request body: 1 MiB. */
    public static final int MAX_JSON_BODY = 1024 * 1024;
    /** A body already read (by the idempotency layer, to hash it), so the handler reads the same bytes. */
    static final String CACHED_BODY = "slipway.body";

    private Requests() {}

    public static Principal principal(Context ctx) {
        Principal p = ctx.attribute(PRINCIPAL);
        if (p == null) throw new IllegalStateException("route reached without authentication");
        return p;
    }

    /** Who sent the request, for per-client limits ({@link #CLIENT}); the connection's peer when unset. */
    public static String client(Context ctx) {
        String client = ctx.attribute(CLIENT);
        return client == null ? ctx.ip() : client;
    }

    public static String requestId(Context ctx) {
        String id = ctx.attribute(REQUEST_ID);
        return id == null ? "-" : id;
    }

    /**
     * Runs a task once the answer to this request has been sent (or the request failed), not before: work the
     * client does not wait for then does not compete with writing its answer, nor with the request the client
     * sends next. Outside Jetty (no servlet request) it runs at once.
     */
    public static Executor afterAnswer(Context ctx) {
        ServletContextRequest request = ServletContextRequest.getServletContextRequest(ctx.req());
        if (request == null) return Runnable::run;
        return task -> Request.addCompletionListener(request, failure -> task.run());
    }

    /** The JSON object body: 415 unless JSON, 413 over the limit, 400 when malformed or not an object. */
    public static Body json(Context ctx, int maxBytes) {
        String type = ctx.header("Content-Type"); // raw: the servlet's parsed form throws on an unknown charset
        if (type == null || !type.toLowerCase().split(";")[0].trim().equals("application/json")) {
            throw new ApiException(415, "unsupported_media_type",
                    "Content-Type must be application/json", null, Map.of());
        }
        byte[] bytes = bytes(ctx, maxBytes);
        JsonNode node;
        try {
            node = bytes.length == 0 ? null : Json.MAPPER.readTree(bytes);
        } catch (JacksonException e) {
            throw ApiException.invalid("Request body is not valid JSON: " + e.getOriginalMessage(), null);
        } catch (IOException e) {
            throw ApiException.invalid("Request body could not be read", null);
        }
        if (node == null || !node.isObject()) {
            throw ApiException.invalid("Request body must be a JSON object", null);
        }
        return new Body((ObjectNode) node);
    }

    /** The raw body, refused with 413 once it passes {@code maxBytes} (checked while reading, not only by Content-Length). */
    static final long DRAIN_LIMIT = 8L * 1024 * 1024;

    public static byte[] bytes(Context ctx, long maxBytes) {
        byte[] cached = ctx.attribute(CACHED_BODY);
        if (cached != null) {
            if (cached.length > maxBytes) throw tooLarge(maxBytes);
            return cached;
        }
        long declared = ctx.req().getContentLengthLong();
        if (declared > maxBytes) throw drainedTooLarge(ctx, declared, maxBytes);
        try (InputStream in = ctx.req().getInputStream()) {
            ByteArrayOutputStream out = new ByteArrayOutputStream((int) Math.min(Math.max(declared, 0), maxBytes));
            byte[] buf = new byte[64 * 1024];
            long total = 0;
            for (int n; (n = in.read(buf)) != -1; ) {
                total += n;
                if (total > maxBytes) throw tooLarge(maxBytes);
                out.write(buf, 0, n);
            }
            return out.toByteArray();
        } catch (IOException e) {
            throw unreadable(e);
        }
    }

    /** Refuses with 413, before reading it, a body whose Content-Length is over {@code maxBytes}. */
    public static void refuseDeclaredOver(Context ctx, long maxBytes) {
        long declared = ctx.req().getContentLengthLong();
        if (declared > maxBytes) throw drainedTooLarge(ctx, declared, maxBytes);
    }

    /**
     * The 413 for a body whose Content-Length is over the limit. A body at most {@link #DRAIN_LIMIT} over it
     * is read and dropped first: answering while the client still sends makes the server close the
     * connection, and the client may then see a reset instead of the 413.
     */
    private static ApiException drainedTooLarge(Context ctx, long declared, long maxBytes) {
        if (declared - maxBytes <= DRAIN_LIMIT) {
            try (InputStream in = ctx.req().getInputStream()) {
                in.transferTo(OutputStream.nullOutputStream());
            } catch (IOException ignored) {
                // the client gave up; the answer is the same
            }
        }
        return tooLarge(maxBytes);
    }

    /**
     * Copies the raw body to {@code out} without holding it in memory, refused with 413 once it passes
     * {@code maxBytes}; returns the number of bytes copied.
     */
    public static long stream(Context ctx, long maxBytes, OutputStream out) throws IOException {
        long declared = ctx.req().getContentLengthLong();
        if (declared > maxBytes) throw drainedTooLarge(ctx, declared, maxBytes);
        InputStream in;
        try {
            in = ctx.req().getInputStream();
        } catch (IOException e) {
            throw unreadable(e);
        }
        try (in) {
            byte[] buf = new byte[64 * 1024];
            long total = 0;
            while (true) {
                int n;
                try {
                    n = in.read(buf);
                } catch (IOException e) {
                    throw unreadable(e);
                }
                if (n == -1) return total;
                total += n;
                if (total > maxBytes) throw tooLarge(maxBytes);
                out.write(buf, 0, n);
            }
        }
    }

    /** A body that could not be read: 408 when it came slower than the listener's minimum rate, else 400. */
    private static ApiException unreadable(IOException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof TimeoutException) {
                return new ApiException(408, "request_timeout", "The request body did not arrive in time", null, Map.of());
            }
        }
        return ApiException.invalid("Request body could not be read", null);
    }

    public static ApiException tooLarge(long maxBytes) {
        return new ApiException(413, "payload_too_large",
                "Request body is larger than " + maxBytes + " bytes", null, Map.of());
    }
}
