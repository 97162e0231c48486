package dev.slipway.dashboard;

import dev.slipway.users.Passwords;
import io.javalin.http.Context;

import java.time.Duration;

/**
 * The anti-forgery token of a form shown before sign-in, when there is no session to bind it to: it is both in a
 * cookie that only the form's path receives and in the form, and a submission must carry the same in both.
 */
record FormCookie(Auth auth, String name, String path) {
    private static final Duration LIFETIME = Duration.ofHours(2);

    /** The token to put in the form, set as the cookie when the browser has none yet. */
    String token(Context ctx) {
        String token = ctx.cookie(name);
        if (token == null || token.length() < 20 || token.length() > 100) {
            token = Passwords.generate() + Passwords.generate();
            auth.setCookie(ctx, name, token, path, LIFETIME, "Strict");
        }
        return token;
    }

    /** 403 unless the form carried the cookie's token. */
    void check(Context ctx, Form form) {
        if (!Auth.sameToken(form.get("_csrf"), ctx.cookie(name))) throw Auth.csrfRefused();
    }

    void clear(Context ctx) {
        auth.setCookie(ctx, name, "", path, Duration.ZERO, "Strict");
    }
}
