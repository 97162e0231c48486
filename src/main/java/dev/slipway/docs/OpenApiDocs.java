package dev.slipway.docs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.slipway.api.AppUrls;
import io.javalin.http.Context;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.function.Supplier;

/**
 * The OpenAPI 3.1 documents of the main API ({@code /v1/openapi.json}) and of the plant-store
 * sandbox ({@code /sandbox/openapi.json}), kept as YAML in the jar, served as JSON with the server
 * address this installation really has, and rendered as a reference page at {@code /docs}.
 */
public final class OpenApiDocs {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private final AppUrls urls;
    private final Supplier<String> sandboxBase;

    /** @param sandboxBase the sandbox's address: under the API listener, or its own listener's */
    public OpenApiDocs(AppUrls urls, Supplier<String> sandboxBase) {
        this.urls = urls;
        this.sandboxBase = sandboxBase;
    }

    /** Parsed on first use, not on the start-up path. */
    private static final class Documents {
        static final JsonNode V1 = load("/openapi/v1.yaml");
        static final JsonNode SANDBOX = load("/openapi/sandbox.yaml");
    }

    public static JsonNode load(String resource) {
        try (InputStream in = OpenApiDocs.class.getResourceAsStream(resource)) {
            if (in == null) throw new IllegalStateException("missing resource " + resource);
            return YAML.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public void v1(Context ctx) {
        ctx.json(withServer(Documents.V1, urls.api("/v1")));
    }

    public void sandbox(Context ctx) {
        ctx.json(withServer(Documents.SANDBOX, sandboxBase.get()));
    }

    public void page(Context ctx) {
        ctx.contentType("text/html; charset=utf-8").result(ReferencePage.render(withServer(Documents.V1, urls.api("/v1")),
                withServer(Documents.SANDBOX, sandboxBase.get())));
    }

    private static JsonNode withServer(JsonNode doc, String url) {
        ObjectNode copy = doc.deepCopy();
        copy.putArray("servers").addObject().put("url", url);
        return copy;
    }
}
