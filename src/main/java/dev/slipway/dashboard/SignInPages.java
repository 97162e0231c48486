package dev.slipway.dashboard;

import dev.slipway.api.Requests;
import dev.slipway.dashboard.Html.Safe;
import dev.slipway.users.SessionStore;
import dev.slipway.users.SignInThrottle;
import dev.slipway.users.User;
import dev.slipway.users.UserStore;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;

import java.time.Duration;
import java.util.Locale;
import java.util.Optional;

/**
 * Signing in and out. The sign-in form is protected against cross-site submission by a token that is
 * both in a cookie only this form's path receives and in the form (there is no session yet to bind it to).
 */
public final class SignInPages {
    static final String FORM_COOKIE = "slipway_signin";

    private final Auth auth;
    private final UserStore users;
    private final SignInThrottle throttle;
    private final FormCookie formCookie;
    private final boolean mailResets;

    /** {@code mailResets}: a forgotten password is reset by mail (SMTP is configured), else by an operator. */
    public SignInPages(Auth auth, UserStore users, SignInThrottle throttle, boolean mailResets) {
        this.auth = auth;
        this.users = users;
        this.throttle = throttle;
        this.mailResets = mailResets;
        this.formCookie = new FormCookie(auth, FORM_COOKIE, "/dashboard/sign-in");
    }

    public void form(Context ctx) {
        if (auth.viewer(ctx).isPresent()) {
            ctx.redirect(Auth.safeNext(ctx.queryParam("next")), HttpStatus.FOUND);
            return;
        }
        String notice = ctx.queryParam("signed_out") != null ? "You are signed out."
                : ctx.queryParam("expired") != null ? "Your session has ended; sign in again."
                : ctx.queryParam("reset") != null ? "Your password is changed. Sign in with it." : null;
        render(ctx, 200, "", ctx.queryParam("next"), null, notice);
    }

    public void submit(Context ctx) {
        Form form = Form.read(ctx);
        String next = form.get("next");
        formCookie.check(ctx, form);
        String rawEmail = form.get("email") == null ? "" : form.get("email").trim();
        String password = form.get("password") == null ? "" : form.get("password");
        if (rawEmail.isEmpty() || password.isEmpty()) {
            render(ctx, 400, rawEmail, next, "Enter your email and your password.", null);
            return;
        }
        String email = Optional.ofNullable(UserStore.normalize(rawEmail))
                .orElse(rawEmail.toLowerCase(Locale.ROOT).substring(0, Math.min(rawEmail.length(), 254)));
        Duration wait = throttle.wait(email, Requests.client(ctx));
        if (!wait.isZero()) {
            render(ctx, 429, rawEmail, next, "Too many failed sign-ins. " + retryLater(ctx, wait), null);
            return;
        }
        Optional<User> user = users.authenticate(email, password);
        if (user.isEmpty()) {
            throttle.recordFailure(email, Requests.client(ctx));
            render(ctx, 401, rawEmail, next, "Wrong email or password.", null);
            return;
        }
        throttle.clear(email, Requests.client(ctx));
        auth.admit(user.get().accountId());
        SessionStore.Issued issued = auth.sessions().create(user.get());
        auth.startSession(ctx, issued);
        formCookie.clear(ctx);
        ctx.redirect(Auth.safeNext(next), HttpStatus.SEE_OTHER);
    }

    /** A throttled form's answer: {@code Retry-After} in whole seconds (at least one), and the sentence that says it. */
    static String retryLater(Context ctx, Duration wait) {
        long seconds = Math.max(1, wait.toSeconds() + (wait.toMillisPart() > 0 ? 1 : 0));
        ctx.header("Retry-After", Long.toString(seconds));
        return "Try again in " + seconds + (seconds == 1 ? " second." : " seconds.");
    }

    public void signOut(Context ctx, Viewer viewer, Form form) {
        auth.endSession(ctx);
        ctx.redirect("/dashboard/sign-in?signed_out=1", HttpStatus.SEE_OTHER);
    }

    private Safe help() {
        Safe forgot = mailResets
                ? new Safe("<p><a href=\"" + PasswordResetPages.PATH + "\">Forgot your password?</a></p>")
                : new Safe("<p class=\"muted\">Forgot your password? An operator sets a new one with "
                        + "<code>slipway users reset-password --email &lt;email&gt;</code>.</p>");
        return Html.join(forgot, new Safe("""
                <p class="muted">No user yet? An operator creates one with
                <code>slipway users create --account &lt;id&gt; --email &lt;email&gt;</code>.</p>"""));
    }

    private void render(Context ctx, int status, String email, String next, String error, String notice) {
        String token = formCookie.token(ctx);
        Safe body = Html.fmt("""
                <h1>Sign in</h1>
                %s%s
                <form method="post" action="/dashboard/sign-in" class="stack">
                  <input type="hidden" name="_csrf" value="%s">
                  <input type="hidden" name="next" value="%s">
                  <label for="email">Email</label>
                  <input id="email" name="email" type="email" autocomplete="username" required autofocus value="%s">
                  <label for="password">Password</label>
                  <input id="password" name="password" type="password" autocomplete="current-password" required%s>
                  <button type="submit" class="primary">Sign in</button>
                </form>
                %s""",
                Layout.error(error), Layout.notice(notice), token, Auth.safeNext(next), email,
                error == null ? Html.EMPTY : new Safe(" aria-invalid=\"true\""), help());
        Layout.bare(ctx, status, "Sign in", body);
    }
}
