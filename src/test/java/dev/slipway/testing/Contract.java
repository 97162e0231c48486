package dev.slipway.testing;

import com.atlassian.oai.validator.OpenApiInteractionValidator;
import com.atlassian.oai.validator.model.Request;
import com.atlassian.oai.validator.model.SimpleRequest;
import com.atlassian.oai.validator.model.SimpleResponse;
import com.atlassian.oai.validator.report.ValidationReport;
import dev.slipway.core.Json;
import dev.slipway.docs.OpenApiDocs;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Checks every request the HTTP tests make, and every answer they get, against the OpenAPI
 * documents the server publishes (with Atlassian's independent validator), so a route, field,
 * status or header that drifts from the document fails the test that saw it.
 */
public final class Contract {
    private static final OpenApiInteractionValidator V1 = validator("/openapi/v1.yaml", "/v1");
    private static final OpenApiInteractionValidator SANDBOX = validator("/openapi/sandbox.yaml", "/sandbox");

    private Contract() {}

    private static OpenApiInteractionValidator validator(String resource, String base) {
        return OpenApiInteractionValidator.createForInlineApiSpecification(Json.write(OpenApiDocs.load(resource)))
                .withBasePathOverride(base)
                .build();
    }

    /** Throws an AssertionError naming every mismatch between this exchange and the document. */
    public static void check(String method, URI uri, Map<String, List<String>> requestHeaders, byte[] requestBody,
                             Http.Response response) {
        String path = uri.getRawPath();
        OpenApiInteractionValidator validator = path.startsWith("/v1/") ? V1 : path.startsWith("/sandbox/") ? SANDBOX : null;
        if (validator == null) return;
        SimpleRequest.Builder rb = new SimpleRequest.Builder(Request.Method.valueOf(method), path);
        requestHeaders.forEach((k, v) -> rb.withHeader(k, v));
        if (requestBody != null && requestBody.length > 0) rb.withBody(requestBody);
        if (uri.getRawQuery() != null) {
            for (String pair : uri.getRawQuery().split("&")) {
                String[] kv = pair.split("=", 2);
                rb.withQueryParam(decode(kv[0]), kv.length > 1 ? decode(kv[1]) : "");
            }
        }
        SimpleResponse.Builder sb = SimpleResponse.Builder.status(response.status()).withBody(response.body());
        response.headers().forEach((k, v) -> sb.withHeader(k, v));
        ValidationReport report = validator.validate(rb.build(), sb.build());
        List<ValidationReport.Message> problems = report.getMessages().stream()
                .filter(m -> m.getLevel() == ValidationReport.Level.ERROR)
                // a test may send a deliberately bad request: then only the answer has to match the document
                .filter(m -> response.status() < 400 || !m.getKey().startsWith("validation.request"))
                .toList();
        if (!problems.isEmpty()) {
            throw new AssertionError("the exchange " + method + " " + uri + " → " + response.status()
                    + " does not match the OpenAPI document:\n" + problems.stream().map(m -> "  " + m.getKey() + ": " + m.getMessage())
                    .collect(Collectors.joining("\n")) + "\nbody: " + abbreviate(response.body()));
        }
    }

    private static String decode(String s) {
        try {
            return URLDecoder.decode(s, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return s;
        }
    }

    private static String abbreviate(String s) {
        return s == null ? "" : s.length() > 600 ? s.substring(0, 600) + "…" : s;
    }
}
