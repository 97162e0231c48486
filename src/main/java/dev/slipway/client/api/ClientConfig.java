package dev.slipway.client.api;

import dev.slipway.client.context.Context;
import dev.slipway.client.context.UsageException;

import java.net.URI;

/**
 * Where the API is and the key to use, from the environment only: {@code SLIPWAY_API_URL} (with or
 * without {@code /v1}; default {@code http://127.0.0.1:8080}) and {@code SLIPWAY_API_KEY}. A key is
 * never taken from the command line, where it would end up in shell history and process lists.
 */
public record ClientConfig(URI base, String key) {
    static final String URL_ENV = "SLIPWAY_API_URL";
    static final String KEY_ENV = "SLIPWAY_API_KEY";
    static final String DEFAULT_URL = "http://127.0.0.1:8080";

    public static ClientConfig from(Context ctx) {
        String key = ctx.env(KEY_ENV);
        if (key == null) {
            throw new UsageException(KEY_ENV + " is not set: export the API key (sk_…), e.g. from a CI secret; "
                    + "it is never read from the command line");
        }
        if (key.chars().anyMatch(c -> c <= ' ' || c == 127)) {
            throw new UsageException(KEY_ENV + " contains spaces or control characters; it should be one sk_… token");
        }
        String url = ctx.env(URL_ENV);
        return new ClientConfig(base(url == null ? DEFAULT_URL : url), key);
    }

    /** {@code http://host:port[/prefix][/v1][/]} → {@code http://host:port[/prefix]/v1}. */
    static URI base(String raw) {
        String s = raw.trim();
        while (s.endsWith("/")) s = s.substring(0, s.length() - 1);
        if (!s.endsWith("/v1")) s = s + "/v1";
        URI uri;
        try {
            uri = URI.create(s);
        } catch (IllegalArgumentException e) {
            throw new UsageException(URL_ENV + " is not a URL: " + raw);
        }
        if (uri.getScheme() == null || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))
                || uri.getHost() == null || uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw new UsageException(URL_ENV + " must be an http(s) address like http://127.0.0.1:8080, not " + raw);
        }
        return uri;
    }

    /** The absolute address of an API path such as {@code /deployments/dep_1?wait=30}. */
    URI resolve(String path) {
        return URI.create(base + path);
    }
}
