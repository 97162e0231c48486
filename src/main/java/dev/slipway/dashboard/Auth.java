package dev.slipway.dashboard;

import dev.slipway.accounts.AccountStore;
import dev.slipway.api.ApiException;
import dev.slipway.api.Gate;
import dev.slipway.users.SessionStore;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.http.HttpStatus;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Sessions for dashboard routes: the cookie, who it belongs to, and the CSRF check of every form.
 * A page without a session sends the browser to sign in; a form also needs its session's token. A viewer
 * of an account this server does not serve (it has no working sandbox and serves only its first) is refused.
 */
public final class Auth {
    static final String COOKIE = "slipway_session";
    static final String PATH = "/dashboard";
    private static final Pattern LOCAL_NEXT = Pattern.compile("^/dashboard(/[A-Za-z0-9_./-]*)?(\\?[A-Za-z0-9_=&%.-]*)?$");

    /** A page handler that runs only for a signed-in viewer. */
    @FunctionalInterface
    public interface Page {
        void handle(Context ctx, Viewer viewer) throws Exception;
    }

    /** A form handler that runs only for a signed-in viewer whose form carried the session's token. */
    @FunctionalInterface
    public interface Submit {
        void handle(Context ctx, Viewer viewer, Form form) throws Exception;
    }

    /** A form-with-files handler that runs only for a signed-in viewer whose form carried the session's token. */
    @FunctionalInterface
    interface FileSubmit {
        void handle(Context ctx, Viewer viewer, FileForm form) throws Exception;
    }

    /** Shows the signed-in viewer why their form with files could not be read (too large, not multipart). */
    @FunctionalInterface
    interface Unread {
        void handle(Context ctx, Viewer viewer, ApiException problem) throws Exception;
    }

    private final SessionStore sessions;
    private final AccountStore accounts;
    private final boolean secureCookies;
    private final Supplier<String> serverWarning;
    private final Function<String, Optional<String>> refusal;

    public Auth(SessionStore sessions, AccountStore accounts, boolean secureCookies) {
        this(sessions, accounts, secureCookies, null, account -> Optional.empty());
    }

    /**
     * @param serverWarning shown atop every signed-in page (apps not isolated, the disk low on space), or null: asked per page
     * @param refusal       why this server does not serve an account (by id); empty when it does
     */
    public Auth(SessionStore sessions, AccountStore accounts, boolean secureCookies, Supplier<String> serverWarning,
                Function<String, Optional<String>> refusal) {
        this.serverWarning = serverWarning;
        this.sessions = sessions;
        this.accounts = accounts;
        this.secureCookies = secureCookies;
        this.refusal = refusal;
    }

    /** Runs {@code page} for the viewer, or redirects to sign in (and back here after). */
    public Handler page(Page page) {
        return ctx -> {
            Optional<Viewer> viewer = viewer(ctx);
            if (viewer.isEmpty()) {
                String back = ctx.path() + (ctx.queryString() == null ? "" : "?" + ctx.queryString());
                ctx.redirect("/dashboard/sign-in?next=" + URLEncoder.encode(back, StandardCharsets.UTF_8), HttpStatus.FOUND);
                return;
            }
            admit(viewer.get().accountId());
            page.handle(ctx, viewer.get());
        };
    }

    /** A stream (the live log): 401 without a session, since an EventSource cannot follow a sign-in. */
    public Handler stream(Page page) {
        return ctx -> {
            Viewer viewer = viewer(ctx).orElseThrow(() -> ApiException.unauthorized("Sign in to the dashboard first"));
            admit(viewer.accountId());
            page.handle(ctx, viewer);
        };
    }

    /** Runs {@code submit} when the session is valid and the form carries its CSRF token; 403 otherwise. */
    public Handler form(Submit submit) {
        return ctx -> {
            Form form = Form.read(ctx);
            Optional<Viewer> viewer = viewer(ctx);
            if (viewer.isEmpty()) {
                ctx.redirect("/dashboard/sign-in?expired=1", HttpStatus.SEE_OTHER);
                return;
            }
            if (!sameToken(form.get("_csrf"), viewer.get().csrfToken())) throw csrfRefused();
            admit(viewer.get().accountId());
            submit.handle(ctx, viewer.get(), form);
        };
    }

    /**
     * {@link #form} for a form with files of at most {@code maxFileBytes} together: the same session and CSRF
     * check, on the multipart form's {@code _csrf} field. The session is checked before the body is read, so
     * nobody signed out has files written to disk; a body that cannot be read goes to {@code unread}.
     */
    Handler fileForm(long maxFileBytes, FileSubmit submit, Unread unread) {
        return ctx -> {
            Optional<Viewer> viewer = viewer(ctx);
            if (viewer.isEmpty()) {
                ctx.redirect("/dashboard/sign-in?expired=1", HttpStatus.SEE_OTHER);
                return;
            }
            FileForm form;
            try {
                form = FileForm.read(ctx, maxFileBytes);
            } catch (ApiException e) {
                if (e.status() != 400 && e.status() != 413 && e.status() != 415) throw e;
                unread.handle(ctx, viewer.get(), e);
                return;
            }
            try (form) {
                if (!sameToken(form.get("_csrf"), viewer.get().csrfToken())) throw csrfRefused();
                admit(viewer.get().accountId());
                submit.handle(ctx, viewer.get(), form);
            }
        };
    }

    /** A 403 page when this server does not serve the account. */
    void admit(String accountId) {
        Optional<String> refused = refusal.apply(accountId);
        if (refused.isPresent()) throw Gate.notServed(refused.get());
    }

    static ApiException csrfRefused() {
        return new ApiException(403, "csrf_refused", "This form was refused: it did not come from this dashboard "
                + "page or your session changed since it was shown (CSRF check). Go back, reload the page and try again.",
                null, Map.of());
    }

    static boolean sameToken(String given, String expected) {
        if (given == null || expected == null) return false;
        return MessageDigest.isEqual(given.getBytes(StandardCharsets.UTF_8), expected.getBytes(StandardCharsets.UTF_8));
    }

    Optional<Viewer> viewer(Context ctx) {
        return sessions.find(ctx.cookie(COOKIE)).flatMap(s -> accounts.find(s.user().accountId())
                .map(a -> new Viewer(s.user(), a, s.csrfToken(), serverWarning.get())));
    }

    void startSession(Context ctx, SessionStore.Issued issued) {
        setCookie(ctx, COOKIE, issued.token(), PATH, SessionStore.LIFETIME, "Lax");
    }

    void endSession(Context ctx) {
        sessions.delete(ctx.cookie(COOKIE));
        setCookie(ctx, COOKIE, "", PATH, Duration.ZERO, "Lax");
    }

    SessionStore sessions() { return sessions; }

    /** Cookies are HttpOnly always, Secure when the dashboard's public address is https. */
    void setCookie(Context ctx, String name, String value, String path, Duration maxAge, String sameSite) {
        ctx.res().addHeader("Set-Cookie", name + "=" + value + "; Path=" + path + "; Max-Age=" + maxAge.toSeconds()
                + "; HttpOnly; SameSite=" + sameSite + (secureCookies ? "; Secure" : ""));
    }

    /** Where to go after signing in: a dashboard path only (no open redirect). */
    static String safeNext(String next) {
        if (next == null || !LOCAL_NEXT.matcher(next).matches() || next.contains("//") || next.contains("..")) {
            return "/dashboard/projects";
        }
        return next;
    }
}
