package dev.slipway.dashboard;

import dev.slipway.dashboard.Html.Safe;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** How values read in the dashboard. */
final class Format {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'").withZone(ZoneOffset.UTC);

    private Format() {}

    static Safe time(Instant at) {
        if (at == null) return Html.fmt("<span class=\"muted\">—</span>");
        return Html.fmt("<time datetime=\"%s\">%s</time>", at.toString(), TIME.format(at));
    }

    static Safe timeOr(Instant at, String none) {
        return at == null ? Html.fmt("<span class=\"muted\">%s</span>", none) : time(at);
    }

    /** A status as a coloured badge (colour and the word, never colour alone). */
    static Safe badge(String status) {
        return Html.fmt("<span class=\"badge badge-%s\">%s</span>", status, status.replace('_', ' '));
    }

    static Safe sha(String sha) {
        if (sha == null) return Html.fmt("<span class=\"muted\">—</span>");
        return Html.fmt("<code title=\"%s\">%s</code>", sha, sha.length() > 7 ? sha.substring(0, 7) : sha);
    }

    static String orDash(String s) {
        return s == null || s.isEmpty() ? "—" : s;
    }
}
