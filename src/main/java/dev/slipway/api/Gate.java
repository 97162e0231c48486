package dev.slipway.api;

import dev.slipway.accounts.Tier;
import dev.slipway.auth.Authenticator;
import dev.slipway.auth.Principal;
import dev.slipway.net.ClientPrefix;
import dev.slipway.ratelimit.Decision;
import dev.slipway.ratelimit.RateLimiter;
import io.javalin.http.Context;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * What every {@code /v1} request passes before its route: authentication, then the rate limit of
 * its account (or, without a valid key, of its client address at the free tier), then whether this server
 * serves that account (one without a working sandbox serves only its first), and a query string that is not
 * valid percent-encoding ({@link QueryEncoding}). The limit headers
 * are set here, so every answer carries them, errors included.
 */
public final class Gate {
    private final Authenticator authenticator;
    private final RateLimiter rateLimiter;
    private final Set<String> publicPaths;
    private final Function<String, Optional<String>> refusal;

    /** @param refusal why this server does not serve an account (by id); empty when it does */
    public Gate(Authenticator authenticator, RateLimiter rateLimiter, Set<String> publicPaths,
                Function<String, Optional<String>> refusal) {
        this.authenticator = authenticator;
        this.rateLimiter = rateLimiter;
        this.publicPaths = publicPaths;
        this.refusal = refusal;
    }

    public void check(Context ctx) {
        String path = ctx.path();
        if (!(path.equals("/v1") || path.startsWith("/v1/"))) return;
        if (isPublic(path)) {
            // no key needed, but still counted (per address) and still answered with the limit headers
            Decision decision = byClient(ctx);
            setHeaders(ctx, decision);
            if (!decision.allowed()) throw limited(decision);
            return;
        }
        Optional<Principal> principal;
        try {
            principal = authenticator.authenticate(ctx.header("Authorization"));
        } catch (RuntimeException storeFailure) {
            // the answer will be a 500, but it still carries the limit headers, counted per address
            setHeaders(ctx, byClient(ctx));
            throw storeFailure;
        }
        Decision decision = count(ctx, principal);
        if (!decision.allowed()) throw limited(decision);
        if (principal.isEmpty()) {
            String header = ctx.header("Authorization");
            throw ApiException.unauthorized(header == null
                    ? "Missing API key: send Authorization: Bearer <API_KEY>"
                    : "Invalid or revoked API key");
        }
        Optional<String> refused = refusal.apply(principal.get().accountId());
        if (refused.isPresent()) throw notServed(refused.get());
        ctx.attribute(Requests.PRINCIPAL, principal.get());
        QueryEncoding.check(ctx.queryString());
    }

    private boolean isPublic(String path) {
        if (publicPaths.contains(path)) return true;
        for (String p : publicPaths) {
            if (p.endsWith("/") && path.startsWith(p) && path.length() > p.length()) return true;
        }
        return false;
    }

    /** 403 {@code sandbox_unavailable}: this server has no working sandbox and serves only its first account. */
    public static ApiException notServed(String why) {
        return new ApiException(403, "sandbox_unavailable", why, null, Map.of());
    }

    /**
     * Counts the request against its account's limit, or without a principal its address's at the free
     * tier, and sets the limit headers; also what {@code /sandbox} passes, which answers in its own shape.
     */
    public Decision count(Context ctx, Optional<Principal> principal) {
        Decision decision = principal
                .map(p -> rateLimiter.acquire("acct:" + p.accountId(), p.account().requestsPerMinute()))
                .orElseGet(() -> byClient(ctx));
        setHeaders(ctx, decision);
        if (!decision.allowed()) ctx.header("Retry-After", Long.toString(decision.retryAfterSeconds()));
        return decision;
    }

    /** A request without a key: counted against its client's quota at the free tier ({@link ClientPrefix}: an IPv6 client's /64). */
    private Decision byClient(Context ctx) {
        return rateLimiter.acquire("ip:" + ClientPrefix.of(Requests.client(ctx)), Tier.FREE.requestsPerMinute());
    }

    public static String limitMessage(Decision decision) {
        return "Rate limit of " + decision.limit() + " requests per minute exceeded; retry after "
                + decision.retryAfterSeconds() + " s";
    }

    private static ApiException limited(Decision decision) {
        return new ApiException(429, "rate_limited", limitMessage(decision),
                null, Map.of("Retry-After", Long.toString(decision.retryAfterSeconds())));
    }

    private static void setHeaders(Context ctx, Decision decision) {
        ctx.header("X-RateLimit-Limit", Integer.toString(decision.limit()));
        ctx.header("X-RateLimit-Remaining", Long.toString(decision.remaining()));
        ctx.header("X-RateLimit-Reset", Long.toString(decision.resetEpochSeconds()));
    }
}
