package dev.slipway.router;

import java.util.List;
import java.util.Map;

/**
 * A static site's own response headers and redirects (its {@code slipway.toml}'s {@code [[headers]]} and
 * {@code [[redirects]]}), applied by the router before it looks for a file. A path pattern is a path, or a prefix
 * ending in {@code *} that matches any rest ({@code /blog/*}); a redirect's target may name that rest as {@code :splat}.
 */
public record SiteRules(List<Header> headers, List<Redirect> redirects) {
    public static final SiteRules NONE = new SiteRules(List.of(), List.of());

    public SiteRules {
        headers = headers == null ? List.of() : List.copyOf(headers);
        redirects = redirects == null ? List.of() : List.copyOf(redirects);
    }

    /** Headers set on every answer to a path matching {@code path}; a later rule's value of the same name wins. */
    public record Header(String path, Map<String, String> values) {
        public Header {
            values = Map.copyOf(values);
        }
    }

    /** A path matching {@code from} answers {@code status} with {@code Location: to}. */
    public record Redirect(String from, String to, int status) {}

    public boolean none() {
        return headers.isEmpty() && redirects.isEmpty();
    }

    /** The first redirect for the path, its target's {@code :splat} filled and the request's query kept; or null. */
    public Redirected redirect(String path, String query) {
        for (Redirect r : redirects) {
            String rest = match(r.from(), path);
            if (rest == null) continue;
            String to = r.to().replace(":splat", rest);
            if (query != null && !query.isEmpty() && to.indexOf('?') < 0) to = to + "?" + query;
            return new Redirected(r.status(), to);
        }
        return null;
    }

    public record Redirected(int status, String location) {}

    /** Calls {@code set} with each header for the path, in the file's order (so a later rule wins). */
    public void headersFor(String path, java.util.function.BiConsumer<String, String> set) {
        for (Header h : headers) {
            if (match(h.path(), path) != null) h.values().forEach(set);
        }
    }

    /** What {@code *} matched (empty for an exact path), or null when the path does not match the pattern. */
    static String match(String pattern, String path) {
        if (pattern.endsWith("*")) {
            String prefix = pattern.substring(0, pattern.length() - 1);
            if (path.startsWith(prefix)) return path.substring(prefix.length());
            // "/blog/*" also matches "/blog" itself
            return prefix.endsWith("/") && path.equals(prefix.substring(0, prefix.length() - 1)) ? "" : null;
        }
        return pattern.equals(path) ? "" : null;
    }
}
