package dev.slipway.dashboard;

import dev.slipway.api.AppUrls;
import dev.slipway.api.Requests;
import dev.slipway.dashboard.Html.Safe;
import dev.slipway.mail.Mailer;
import dev.slipway.users.PasswordResets;
import dev.slipway.users.Passwords;
import dev.slipway.users.SignInThrottle;
import dev.slipway.users.User;
import dev.slipway.users.UserStore;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;

import java.time.Duration;
import java.util.Optional;

/**
 * A forgotten password, reset by mail: a user asks for a link, which works once for
 * {@link PasswordResets#VALID}, and chooses a new password with it. The answer to a request is the same whether
 * a user has the email or not, and comes as fast (the mail leaves on a thread of its own), so the form tells
 * nobody which emails have users. Requests count against the client's address like failed sign-ins. Without SMTP
 * the pages say how an operator resets a password.
 */
public final class PasswordResetPages {
    static final String PATH = "/dashboard/password-reset";

    private final Auth auth;
    private final UserStore users;
    private final PasswordResets resets;
    private final SignInThrottle throttle;
    private final Mailer mailer;
    private final AppUrls urls;
    private final FormCookie formCookie;

    /** {@code mailer} null: mail is off. */
    public PasswordResetPages(Auth auth, UserStore users, PasswordResets resets, SignInThrottle throttle, Mailer mailer,
                              AppUrls urls) {
        this.auth = auth;
        this.users = users;
        this.resets = resets;
        this.throttle = throttle;
        this.mailer = mailer;
        this.urls = urls;
        this.formCookie = new FormCookie(auth, "slipway_reset", PATH);
    }

    public void form(Context ctx) {
        if (mailer == null) {
            operatorOnly(ctx);
            return;
        }
        askForm(ctx, 200, "", null);
    }

    public void request(Context ctx) {
        if (mailer == null) {
            operatorOnly(ctx);
            return;
        }
        Form form = Form.read(ctx);
        formCookie.check(ctx, form);
        String raw = form.get("email") == null ? "" : form.get("email").strip();
        String email = UserStore.normalize(raw);
        if (email == null) {
            askForm(ctx, 400, raw, "Enter the email you sign in with.");
            return;
        }
        String client = Requests.client(ctx);
        Duration wait = throttle.wait(null, client);
        if (!wait.isZero()) {
            askForm(ctx, 429, raw, "Too many attempts from here. " + SignInPages.retryLater(ctx, wait));
            return;
        }
        throttle.recordFailure(null, client);
        Optional<User> user = users.findByEmail(email);
        user.flatMap(resets::issue).ifPresent(token -> mailer.send(user.get().email(), "Choose a new Slipway password",
                mailText(user.get().email(), token)));
        Layout.bare(ctx, 200, "Check your mail", Html.fmt("""
                <h1>Check your mail</h1>
                <p>If a user signs in with <strong>%s</strong>, a link to choose a new password is on its way there.
                It works once, for %s minutes.</p>
                <p><a href="/dashboard/sign-in">Back to sign in</a></p>""", email, PasswordResets.VALID.toMinutes()));
    }

    private String mailText(String email, String token) {
        return """
                Someone, probably you, asked to reset the password of %s on the Slipway dashboard at %s.

                Choose a new password here (the link works once, for %d minutes):

                %s

                If it was not you, ignore this mail: your password stays as it is.
                """.formatted(email, urls.apiBase(), PasswordResets.VALID.toMinutes(), urls.api(PATH + "/" + token));
    }

    public void chooseForm(Context ctx) {
        if (mailer == null) {
            operatorOnly(ctx);
            return;
        }
        String token = ctx.pathParam("token");
        if (!resets.valid(token)) {
            expired(ctx);
            return;
        }
        chooseForm(ctx, 200, token, null);
    }

    public void choose(Context ctx) {
        if (mailer == null) {
            operatorOnly(ctx);
            return;
        }
        Form form = Form.read(ctx);
        formCookie.check(ctx, form);
        String token = ctx.pathParam("token");
        String password = form.get("password") == null ? "" : form.get("password");
        if (!password.equals(form.get("confirm"))) {
            chooseForm(ctx, 400, token, "The two passwords differ.");
            return;
        }
        Optional<String> changed;
        try {
            changed = resets.redeem(token, password);
        } catch (IllegalArgumentException e) {
            chooseForm(ctx, 400, token, capitalized(e.getMessage()) + ".");
            return;
        }
        if (changed.isEmpty()) {
            expired(ctx);
            return;
        }
        formCookie.clear(ctx);
        ctx.redirect("/dashboard/sign-in?reset=1", HttpStatus.SEE_OTHER);
    }

    private void askForm(Context ctx, int status, String email, String error) {
        Layout.bare(ctx, status, "Reset your password", Html.fmt("""
                <h1>Reset your password</h1>
                %s
                <p class="muted">Enter the email you sign in with; a link to choose a new password goes there.</p>
                <form method="post" action="%s" class="stack">
                  <input type="hidden" name="_csrf" value="%s">
                  <label for="email">Email</label>
                  <input id="email" name="email" type="email" autocomplete="username" required autofocus value="%s">
                  <button type="submit" class="primary">Send the link</button>
                </form>
                <p><a href="/dashboard/sign-in">Back to sign in</a></p>""", Layout.error(error), PATH, formCookie.token(ctx), email));
    }

    private void chooseForm(Context ctx, int status, String token, String error) {
        Layout.bare(ctx, status, "Choose a new password", Html.fmt("""
                <h1>Choose a new password</h1>
                %s
                <p class="muted">At least %s characters. Every browser signed in as you is signed out.</p>
                <form method="post" action="%s/%s" class="stack">
                  <input type="hidden" name="_csrf" value="%s">
                  <label for="password">New password</label>
                  <input id="password" name="password" type="password" autocomplete="new-password" required autofocus>
                  <label for="confirm">The same again</label>
                  <input id="confirm" name="confirm" type="password" autocomplete="new-password" required>
                  <button type="submit" class="primary">Set the password</button>
                </form>""", Layout.error(error), Passwords.MIN_LENGTH, PATH, token, formCookie.token(ctx)));
    }

    private void expired(Context ctx) {
        Layout.bare(ctx, 400, "Link expired", Html.fmt("""
                <h1>This link no longer works</h1>
                <p>It was used already, or it is older than %s minutes. <a href="%s">Ask for a new one</a>.</p>""",
                PasswordResets.VALID.toMinutes(), PATH));
    }

    private static void operatorOnly(Context ctx) {
        Layout.bare(ctx, 404, "Reset your password", new Safe("""
                <h1>Reset your password</h1>
                <p>This server sends no mail. An operator sets a new password with
                <code>slipway users reset-password --email &lt;email&gt;</code>.</p>
                <p><a href="/dashboard/sign-in">Back to sign in</a></p>"""));
    }

    private static String capitalized(String s) {
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }
}
