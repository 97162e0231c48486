package dev.slipway.webhooks;

import dev.slipway.net.AddressGuard;
import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.api.ApiException;
import dev.slipway.api.Body;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Reading and checking the fields of a webhook endpoint in a request body. */
final class WebhookInput {
    static final int MAX_URL = 2000;
    static final int MAX_DESCRIPTION = 500;

    private WebhookInput() {}

    /** An absolute http(s) URL with a host and without credentials; null (with a problem recorded) otherwise. */
    static URI url(Body body, boolean required) {
        String raw = body.string("url", required, MAX_URL, null, null);
        if (raw == null) return null;
        URI uri;
        try {
            uri = new URI(raw);
        } catch (URISyntaxException e) {
            body.problem("url", "is not a valid URL");
            return null;
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase();
        if (!scheme.equals("http") && !scheme.equals("https")) {
            body.problem("url", "must be an http or https URL");
        } else if (uri.getHost() == null || uri.getHost().isEmpty()) {
            body.problem("url", "must name a host");
        } else if (uri.getRawUserInfo() != null) {
            body.problem("url", "must not carry credentials (they would be shown by GET)");
        } else if (uri.getRawFragment() != null) {
            body.problem("url", "must not have a fragment");
        } else {
            return uri;
        }
        return null;
    }

    /** A non-empty array of known event types (or {@code *}), without duplicates; null when absent. */
    static List<String> events(Body body, boolean required) {
        JsonNode v = body.node().get("events");
        if (v == null || v.isNull()) {
            if (required) body.problem("events", "is required");
            return null;
        }
        if (!v.isArray() || v.isEmpty()) {
            body.problem("events", "must be a non-empty array of event types");
            return null;
        }
        List<String> out = new ArrayList<>();
        for (JsonNode e : v) {
            if (!e.isTextual() || !EventTypes.accepted(e.textValue())) {
                body.problem("events", "must hold only *, " + String.join(", ", EventTypes.KNOWN));
                return null;
            }
            if (!out.contains(e.textValue())) out.add(e.textValue());
        }
        return out.contains(EventTypes.ALL) ? List.of(EventTypes.ALL) : List.copyOf(out);
    }

    static Boolean enabled(Body body) {
        return body.bool("enabled");
    }

    /** 400 {@code url_not_allowed} when the target is inside the operator's network. */
    static void reachable(AddressGuard guard, URI url) {
        try {
            guard.check(url);
        } catch (AddressGuard.Refused refused) {
            throw new ApiException(400, "url_not_allowed", "Invalid url: " + refused.getMessage(),
                    Map.of("url", refused.getMessage()), Map.of());
        }
    }
}
