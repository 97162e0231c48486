package dev.slipway.dashboard;

import dev.slipway.dashboard.Html.Safe;
import io.javalin.http.Context;

import java.util.List;

/** The frame around every dashboard page: head, navigation, the signed-in user, and settings tabs. */
public final class Layout {
    /** An entry of a navigation bar; {@code path} also matches the pages under it. */
    public record Link(String label, String path) {}

    /** The top navigation. */
    static final List<Link> NAV = List.of(new Link("Projects", "/dashboard/projects"),
            new Link("Settings", "/dashboard/settings"));

    /** The tabs of Settings; a new settings page is one more entry here and its routes. */
    static final List<Link> SETTINGS = List.of(new Link("API keys", "/dashboard/settings/api-keys"),
            new Link("Webhooks", "/dashboard/settings/webhooks"));

    private Layout() {}

    /** A full page for a signed-in viewer; {@code current} is the request path, for marking the active links. */
    static void render(Context ctx, int status, Viewer viewer, String title, Safe body) {
        String current = ctx.path();
        Safe nav = Html.each(NAV, l -> Html.fmt("<a href=\"%s\"%s>%s</a>", l.path(), ariaCurrent(current, l.path()), l.label()));
        Safe header = Html.fmt("""
                <header class="top">
                  <a class="brand" href="/dashboard/projects">Slipway</a>
                  <nav aria-label="Main">%s</nav>
                  <div class="who">
                    <span class="account" title="Account %s">%s</span>
                    <span class="email">%s</span>
                    <form method="post" action="/dashboard/sign-out">%s<button type="submit" class="link">Sign out</button></form>
                  </div>
                </header>""", nav, viewer.accountId(), viewer.account().name(), viewer.user().email(), csrf(viewer));
        Safe warning = viewer.serverWarning() == null ? Html.EMPTY
                : Html.fmt("<p class=\"alert alert-error banner\" role=\"alert\">%s</p>", viewer.serverWarning());
        write(ctx, status, title, Html.join(header, warning, Html.fmt("<main id=\"main\">%s</main>", body)));
    }

    /** A settings page: the page with the settings tabs above {@code body}. */
    static void settings(Context ctx, int status, Viewer viewer, String title, Safe body) {
        Safe tabs = Html.each(SETTINGS, l -> Html.fmt("<a href=\"%s\"%s>%s</a>", l.path(), ariaCurrent(ctx.path(), l.path()), l.label()));
        render(ctx, status, viewer, title, Html.fmt("""
                <h1>Settings</h1>
                <nav class="tabs" aria-label="Settings">%s</nav>
                %s""", tabs, body));
    }

    /** A page without the signed-in frame (sign in, errors). */
    static void bare(Context ctx, int status, String title, Safe body) {
        write(ctx, status, title, Html.fmt("""
                <header class="top"><a class="brand" href="/dashboard">Slipway</a></header>
                <main id="main" class="narrow">%s</main>""", body));
    }

    /** The hidden field every form of a signed-in page carries. */
    static Safe csrf(Viewer viewer) {
        return Html.fmt("<input type=\"hidden\" name=\"_csrf\" value=\"%s\">", viewer.csrfToken());
    }

    static Safe error(String message) {
        return message == null ? Html.EMPTY : Html.fmt("<p class=\"alert alert-error\" role=\"alert\">%s</p>", message);
    }

    static Safe notice(String message) {
        return message == null ? Html.EMPTY : Html.fmt("<p class=\"alert alert-ok\" role=\"status\">%s</p>", message);
    }

    private static Safe ariaCurrent(String current, String path) {
        boolean active = current.equals(path) || current.startsWith(path + "/");
        return active ? new Safe(" aria-current=\"page\"") : Html.EMPTY;
    }

    private static void write(Context ctx, int status, String title, Safe content) {
        Safe page = Html.fmt("""
                <!doctype html>
                <html lang="en">
                <head>
                <meta charset="utf-8">
                <meta name="viewport" content="width=device-width, initial-scale=1">
                <title>%s · Slipway</title>
                <link rel="stylesheet" href="%s">
                <script src="%s" defer></script>
                </head>
                <body>
                <a class="skip" href="#main">Skip to content</a>
                %s
                </body>
                </html>
                """, title, Assets.CSS, Assets.JS, content);
        Security.headers(ctx);
        ctx.status(status).contentType("text/html; charset=utf-8").result(page.html());
    }
}
