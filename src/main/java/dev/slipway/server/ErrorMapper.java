package dev.slipway.server;

import dev.slipway.api.ApiException;
import dev.slipway.api.ErrorBody;
import dev.slipway.api.Requests;
import dev.slipway.dashboard.ErrorPage;
import dev.slipway.plantstore.PlantError;
import dev.slipway.disk.DiskSpace;
import dev.slipway.core.Incident;
import dev.slipway.store.StoreFailure;
import dev.slipway.store.StoreHealth;
import io.javalin.http.HandlerType;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.Map;

/** Turns every failure into the API's error shape; nothing internal reaches the client. */
public final class ErrorMapper {
    private static final Logger LOG = LoggerFactory.getLogger(ErrorMapper.class);

    private ErrorMapper() {}

    /** How soon a client should try again while the store is away. */
    static final String RETRY_AFTER_SECONDS = "5";

    /** @param store told of each failure that says the store is away: those are a 503 to retry, not a 500 */
    public static void register(RoutesConfig routes, StoreHealth store, DiskSpace disk, Clock clock) {
        Incident busy = new Incident(LOG, "the store's connection pool (every connection busy for a request's whole wait)", clock);
        routes.exception(ApiException.class, (e, ctx) -> write(ctx, e));
        routes.exception(PlantError.class, (e, ctx) -> ctx.status(e.status()).json(e.body()));
        routes.exception(HttpResponseException.class, (e, ctx) -> write(ctx, fromJavalin(ctx, e)));
        routes.exception(Exception.class, (e, ctx) -> {
            if (store.failed(e)) {
                write(ctx, whileStoreAway(ctx, disk));
                return;
            }
            if (StoreFailure.busy(e)) {
                busy.failed(e); // load, not an outage: one line, then at most one a minute with a count
                write(ctx, storeBusy());
                return;
            }
            LOG.error("request {} {} failed (request id {})", ctx.method(), Routes.loggable(ctx.path()), Requests.requestId(ctx), e);
            write(ctx, new ApiException(500, "internal_error",
                    "Internal error; quote request id " + Requests.requestId(ctx) + " when reporting it", null, Map.of()));
        });
        // statuses Javalin sets without throwing (an unmatched route)
        routes.error(404, "*", ctx -> {
            if (ctx.result() == null || ctx.result().isEmpty() || !(ctx.result().startsWith("{\"error\"") || isPage(ctx))) {
                write(ctx, ApiException.notFound("No route " + ctx.method() + " " + ctx.path()));
            }
        });
        routes.error(405, "*", ctx -> {
            if (ctx.result() == null || !(ctx.result().startsWith("{\"error\"") || isPage(ctx))) {
                write(ctx, methodNotAllowed(ctx));
            }
        });
    }

    /** A dashboard page already answered (e.g. a refused rollback, a 404 page): keep it. */
    private static boolean isPage(Context ctx) {
        return ErrorPage.covers(ctx.path()) && ctx.result() != null && ctx.result().startsWith("<!doctype");
    }

    private static ApiException fromJavalin(Context ctx, HttpResponseException e) {
        return switch (e.getStatus()) {
            case 404 -> ApiException.notFound("No route " + ctx.method() + " " + ctx.path());
            case 405 -> methodNotAllowed(ctx);
            case 413 -> Requests.tooLarge(ctx.req().getContentLengthLong());
            case 400 -> ApiException.invalid("Bad request", null);
            default -> new ApiException(e.getStatus(), e.getStatus() >= 500 ? "internal_error" : "invalid_request",
                    e.getStatus() >= 500 ? "Internal error" : "Request refused", null, Map.of());
        };
    }

    /**
     * What a request gets while the store is away: a write on a full disk (what most often takes the embedded store
     * away) is told so, naming the disk (507); anything else a 503 to retry.
     */
    static ApiException whileStoreAway(Context ctx, DiskSpace disk) {
        if (ctx.method() != HandlerType.GET && ctx.method() != HandlerType.HEAD) {
            var shortage = disk.shortage();
            if (shortage.isPresent()) return DiskSpace.refusal(shortage.get());
        }
        return storeUnavailable();
    }

    /** The store is away (PostgreSQL unreachable, the embedded store's disk full or failing): nothing was changed. */
    static ApiException storeUnavailable() {
        // why it is away (a path, an address) is the operator's: it is in the log and behind /readyz's check
        return new ApiException(503, "store_unavailable", "The store is unavailable; nothing was changed. Retry in a few seconds",
                null, Map.of("Retry-After", RETRY_AFTER_SECONDS));
    }

    /** Every connection to the store was busy for as long as a request waits for one: load, nothing was changed. */
    static ApiException storeBusy() {
        return new ApiException(503, "store_unavailable", "The store is busy; nothing was changed. Retry in a second",
                null, Map.of("Retry-After", "1"));
    }

    private static ApiException methodNotAllowed(Context ctx) {
        return new ApiException(405, "method_not_allowed", "Method " + ctx.method() + " is not allowed on " + ctx.path(),
                null, Map.of());
    }

    static void write(Context ctx, ApiException e) {
        e.headers().forEach(ctx::header);
        if (ErrorPage.covers(ctx.path())) {
            ctx.status(e.status());
            ErrorPage.write(ctx, e.status(), e.getMessage(), Requests.requestId(ctx));
            return;
        }
        if (ctx.path().startsWith("/sandbox/")) {
            // the sample API answers in its own flat shape (spec: Errors, item 3)
            ctx.status(e.status()).json(new PlantError(e.status(), e.getMessage()).body());
            return;
        }
        ctx.status(e.status()).json(ErrorBody.of(e.code(), e.getMessage(), Requests.requestId(ctx), e.details()));
    }
}
