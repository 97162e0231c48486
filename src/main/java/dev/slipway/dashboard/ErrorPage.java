package dev.slipway.dashboard;

import io.javalin.http.Context;

/** Dashboard failures as a page a person can read, instead of the API's JSON. */
public final class ErrorPage {
    private ErrorPage() {}

    /** True for the paths whose errors are pages. */
    public static boolean covers(String path) {
        return path.equals("/") || path.equals("/dashboard") || path.startsWith("/dashboard/");
    }

    public static void write(Context ctx, int status, String message, String requestId) {
        String title = switch (status) {
            case 400 -> "That request is not valid";
            case 401 -> "Sign in first";
            case 403 -> "Refused";
            case 404 -> "Not found";
            case 405 -> "Not allowed";
            case 413 -> "Too large";
            case 503 -> "Temporarily unavailable";
            case 507 -> "Not enough disk space";
            default -> status >= 500 ? "Something went wrong" : "Request refused";
        };
        if (ctx.path().endsWith("/logs") && status == 401) { // an EventSource: no page to show
            ctx.status(status).contentType("text/plain; charset=utf-8").result(message);
            return;
        }
        // a 503 with Retry-After (the store is away) reloads itself then: the page comes back on its own
        String retry = status == 503 ? ctx.res().getHeader("Retry-After") : null;
        if (retry != null) ctx.header("Refresh", retry);
        Layout.bare(ctx, status, title, Html.fmt("""
                <h1>%s</h1>
                <p class="alert alert-error" role="alert">%s</p>
                <p>%s</p>
                <p class="muted small">Request id <code>%s</code> · HTTP %s</p>""", title, message,
                retry == null ? Html.fmt("<a href=\"/dashboard/projects\">Back to your projects</a>")
                        : Html.fmt("This page tries again every %s s.", retry), requestId, status));
    }
}
