package dev.slipway.dashboard;

import io.javalin.http.Context;

/** Headers on every dashboard page: scripts and styles only from this server, no framing, no caching of pages. */
final class Security {
    static final String CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'; object-src 'none'";

    private Security() {}

    static void headers(Context ctx) {
        ctx.header("Content-Security-Policy", CSP);
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.header("X-Frame-Options", "DENY");
        ctx.header("Referrer-Policy", "same-origin");
        ctx.header("Cache-Control", "no-store");
    }
}
