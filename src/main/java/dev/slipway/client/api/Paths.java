package dev.slipway.client.api;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/** Path segments and query values, encoded. */
public final class Paths {
    private Paths() {}

    public static String segment(String id) {
        return URLEncoder.encode(id, StandardCharsets.UTF_8).replace("+", "%20");
    }

    public static String query(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
