package dev.slipway.api;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * A query string whose percent-encoding is malformed ({@code ?cursor=%zz}, {@code ?limit=%%}): Jetty drops such a
 * parameter without a word, so the route would answer as if it were absent. It is a 400 naming the parameter.
 */
final class QueryEncoding {
    private static final int MAX_NAME = 60;

    private QueryEncoding() {}

    static void check(String rawQuery) {
        if (rawQuery == null || rawQuery.isEmpty()) return;
        for (String pair : rawQuery.split("&")) {
            if (pair.isEmpty()) continue;
            int eq = pair.indexOf('=');
            String rawName = eq < 0 ? pair : pair.substring(0, eq);
            String name = decoded(rawName);
            if (name == null || eq >= 0 && decoded(pair.substring(eq + 1)) == null) {
                String shown = name != null ? name : rawName;
                throw ApiException.invalidField(shown.length() > MAX_NAME ? shown.substring(0, MAX_NAME) : shown,
                        "is not valid percent-encoding (a % must be followed by two hex digits; write a literal % as %25)");
            }
        }
    }

    private static String decoded(String raw) {
        try {
            return URLDecoder.decode(raw, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException malformed) {
            return null;
        }
    }
}
