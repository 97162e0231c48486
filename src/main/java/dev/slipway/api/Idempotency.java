package dev.slipway.api;

import dev.slipway.auth.Principal;
import dev.slipway.core.Json;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;

/**
 * {@code Idempotency-Key} on POSTs (kept 24 h): the first request's answer is stored and replayed
 * with {@code Idempotent-Replayed: true}; the same key with a different request is 422, and while
 * the first is still running 409. Answers of 5xx are not kept, so a retry can succeed.
 */
public final class Idempotency {
    public static final String HEADER = "Idempotency-Key";
    static final Duration RETENTION = Duration.ofHours(24);

    @FunctionalInterface
    public interface ReplyHandler {
        Reply handle(Context ctx) throws Exception;
    }

    private record Stored(String requestHash, String state, Integer status, String body, String location) {}

    private final Jdbi jdbi;
    private final Clock clock;
    private final AppUrls urls;

    public Idempotency(Jdbi jdbi, Clock clock, AppUrls urls) {
        this.jdbi = jdbi;
        this.clock = clock;
        this.urls = urls;
    }

    public Handler wrap(ReplyHandler handler) {
        return ctx -> {
            String key = ctx.header(HEADER);
            if (key == null) {
                write(ctx, handler.handle(ctx));
                return;
            }
            if (key.isBlank() || key.length() > 255) throw ApiException.invalidField(HEADER, "must be 1-255 characters");
            Principal principal = Requests.principal(ctx);
            byte[] body = Requests.bytes(ctx, Requests.MAX_JSON_BODY);
            ctx.attribute(Requests.CACHED_BODY, body);
            String hash = hash(ctx.method().name(), ctx.path(), body);
            Optional<Stored> existing = claim(principal.accountId(), key, hash);
            if (existing.isPresent()) {
                replay(ctx, existing.get(), hash);
                return;
            }
            Reply reply;
            try {
                reply = handler.handle(ctx);
            } catch (ApiException e) {
                if (e.status() < 500) {
                    complete(principal.accountId(), key, e.status(),
                            Json.write(ErrorBody.of(e.code(), e.getMessage(), Requests.requestId(ctx), e.details())), null);
                } else {
                    release(principal.accountId(), key);
                }
                throw e;
            } catch (Exception | Error e) {
                // anything but a client error leaves the key free, so a retry can succeed
                release(principal.accountId(), key);
                throw e;
            }
            complete(principal.accountId(), key, reply.status(), Json.write(reply.body()), reply.location());
            write(ctx, reply);
        };
    }

    private void write(Context ctx, Reply reply) {
        if (reply.location() != null) ctx.header("Location", urls.api(reply.location()));
        ctx.status(reply.status()).contentType("application/json").result(Json.write(reply.body()));
    }

    private void replay(Context ctx, Stored stored, String hash) {
        if (!stored.requestHash().equals(hash)) {
            throw new ApiException(422, "idempotency_mismatch",
                    "Idempotency-Key was already used with a different request", null, Map.of());
        }
        if (!"done".equals(stored.state())) {
            throw new ApiException(409, "idempotency_conflict",
                    "A request with this Idempotency-Key is still being processed; retry later", null, Map.of());
        }
        if (stored.location() != null) ctx.header("Location", urls.api(stored.location()));
        ctx.header("Idempotent-Replayed", "true");
        ctx.status(stored.status()).contentType("application/json").result(stored.body());
    }

    /** Inserts an in-progress row; empty when this request is the first, else what is stored. */
    private Optional<Stored> claim(String account, String key, String hash) {
        var now = clock.instant();
        jdbi.useHandle(h -> h.createUpdate("DELETE FROM idempotency_keys WHERE account_id = :a AND idem_key = :k AND created_at < :old")
                .bind("a", account).bind("k", key).bind("old", now.minus(RETENTION)).execute());
        try {
            jdbi.useHandle(h -> h.createUpdate("""
                            INSERT INTO idempotency_keys (account_id, idem_key, request_hash, state, created_at)
                            VALUES (:a, :k, :h, 'running', :at)""")
                    .bind("a", account).bind("k", key).bind("h", hash).bind("at", now).execute());
            return Optional.empty();
        } catch (UnableToExecuteStatementException duplicate) {
            return jdbi.withHandle(h -> h.createQuery(
                            "SELECT request_hash, state, response_status, response_body, location FROM idempotency_keys WHERE account_id = :a AND idem_key = :k")
                    .bind("a", account).bind("k", key)
                    .map((rs, c) -> new Stored(rs.getString(1), rs.getString(2), (Integer) rs.getObject(3), rs.getString(4), rs.getString(5)))
                    .findOne()).or(() -> { throw duplicate; });
        }
    }

    private void complete(String account, String key, int status, String body, String location) {
        jdbi.useHandle(h -> h.createUpdate("""
                        UPDATE idempotency_keys SET state = 'done', response_status = :s, response_body = :b, location = :l
                        WHERE account_id = :a AND idem_key = :k""")
                .bind("s", status).bind("b", body).bind("l", location).bind("a", account).bind("k", key).execute());
    }

    private void release(String account, String key) {
        jdbi.useHandle(h -> h.createUpdate("DELETE FROM idempotency_keys WHERE account_id = :a AND idem_key = :k")
                .bind("a", account).bind("k", key).execute());
    }

    /** Deletes keys past their retention; called periodically. */
    public void sweep() {
        jdbi.useHandle(h -> h.createUpdate("DELETE FROM idempotency_keys WHERE created_at < :old")
                .bind("old", clock.instant().minus(RETENTION)).execute());
    }

    private static String hash(String method, String path, byte[] body) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update((method + " " + path + "\n").getBytes(StandardCharsets.UTF_8));
            d.update(body);
            return HexFormat.of().formatHex(d.digest());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
