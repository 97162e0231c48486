package dev.slipway.dashboard;

import dev.slipway.api.ApiException;
import dev.slipway.api.Requests;
import io.javalin.http.Context;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A submitted dashboard form ({@code application/x-www-form-urlencoded}), read with a size bound. */
public final class Form {
    static final int MAX_BYTES = 64 * 1024;

    private final Map<String, List<String>> fields;

    private Form(Map<String, List<String>> fields) {
        this.fields = fields;
    }

    static Form read(Context ctx) {
        String type = ctx.header("Content-Type");
        if (type != null && !type.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
            throw new ApiException(415, "unsupported_media_type", "Forms must be sent as application/x-www-form-urlencoded",
                    null, Map.of());
        }
        String body = new String(Requests.bytes(ctx, MAX_BYTES), StandardCharsets.UTF_8);
        Map<String, List<String>> fields = new HashMap<>();
        if (!body.isEmpty()) {
            for (String pair : body.split("&")) {
                int eq = pair.indexOf('=');
                String name = decode(eq < 0 ? pair : pair.substring(0, eq));
                String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
                fields.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
            }
        }
        return new Form(fields);
    }

    /** The field's (first) value, or null when absent. */
    public String get(String name) {
        List<String> values = fields.get(name);
        return values == null ? null : values.getFirst();
    }

    /** Every value of a repeated field (checkboxes), in the order sent. */
    public List<String> all(String name) {
        return fields.getOrDefault(name, List.of());
    }

    private static String decode(String s) {
        try {
            return URLDecoder.decode(s, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw ApiException.invalid("The form is not correctly encoded", null);
        }
    }
}
