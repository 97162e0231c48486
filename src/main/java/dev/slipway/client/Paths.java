package dev.slipway.client;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/** Path segments and query values, encoded. */
final class Paths {
    private Paths() {}

    static String segment(String id) {
        return URLEncoder.encode(id, StandardCharsets.UTF_8).replace("+", "%20");
    }

    static String query(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
