package dev.slipway.webhooks;

import dev.slipway.net.AddressGuard;
import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.api.ApiException;
import dev.slipway.api.Body;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Reading and checking the fields of a webhook endpoint in a request body. */
final class WebhookInput {
    static final int MAX_URL = 2000;
    static final int MAX_DESCRIPTION = 500;

    private WebhookInput() {}

    /**
     * An absolute http(s) URL with a host and without credentials, or {@code mailto:} one address (an endpoint of format
     * {@code email}); null (with a problem recorded) otherwise.
     */
    static URI url(Body body, boolean required) {
        URI uri = body.uri("url", required, MAX_URL);
        if (uri == null) return null;
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase();
        if (scheme.equals("mailto")) {
            if (mailAddress(uri) != null) return uri;
            body.problem("url", "a mailto: URL names one address and nothing else, e.g. mailto:oncall@example.com");
        } else if (!scheme.equals("http") && !scheme.equals("https")) {
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

    /** The one address of a {@code mailto:} URL, or null when it names none, several, or adds headers. */
    static String mailAddress(URI url) {
        if (!"mailto".equalsIgnoreCase(url.getScheme()) || url.getRawQuery() != null) return null;
        String address = url.getSchemeSpecificPart();
        if (address == null || address.contains(",") || address.contains("?")) return null;
        try {
            new jakarta.mail.internet.InternetAddress(address, true);
        } catch (jakarta.mail.internet.AddressException e) {
            return null;
        }
        return address.contains("@") ? address : null;
    }

    /** An endpoint of format {@code email} has a mailto: URL, and only it; mail needs the server's SMTP. */
    static void consistent(URI url, String format, boolean mailOn) {
        boolean mailto = "mailto".equalsIgnoreCase(url.getScheme());
        if (mailto != ChatFormat.EMAIL.equals(format)) {
            throw ApiException.invalidField(mailto ? "format" : "url", mailto ? "must be email for a mailto: URL"
                    : "must be mailto:<address> for format email");
        }
        if (mailto && !mailOn) {
            throw ApiException.invalidField("url", "e-mail needs the server's SMTP server (SLIPWAY_SMTP_URL), which is not set");
        }
    }

    /** 400 {@code url_not_allowed} when the target is inside the operator's network. */
    static void reachable(AddressGuard guard, URI url) {
        if ("mailto".equalsIgnoreCase(url.getScheme())) return; // sent through the operator's SMTP server
        try {
            guard.check(url);
        } catch (AddressGuard.Refused refused) {
            throw new ApiException(400, "url_not_allowed", "Invalid url: " + refused.getMessage(),
                    Map.of("url", refused.getMessage()), Map.of());
        }
    }
}
