package dev.slipway.docs;

import com.fasterxml.jackson.databind.JsonNode;
import org.commonmark.parser.Parser;
import org.commonmark.renderer.html.HtmlRenderer;

import java.util.Iterator;
import java.util.Map;

/** A readable API reference rendered on the server from the OpenAPI documents: no scripts, no CDN. */
final class ReferencePage {
    private static final Parser MARKDOWN = Parser.builder().build();
    private static final HtmlRenderer HTML = HtmlRenderer.builder().escapeHtml(true).sanitizeUrls(true).build();

    private ReferencePage() {}

    static String render(JsonNode v1, JsonNode sandbox) {
        StringBuilder html = new StringBuilder("""
                <!doctype html><html lang="en"><head><meta charset="utf-8">
                <meta name="viewport" content="width=device-width, initial-scale=1">
                <title>Slipway API reference</title>
                <style>
                body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d2330;background:#fafbfc}
                main{max-width:980px;margin:0 auto;padding:24px}
                h1{margin-top:0} h2{border-bottom:1px solid #dde2ea;padding-bottom:4px;margin-top:40px}
                .op{background:#fff;border:1px solid #dde2ea;border-radius:6px;padding:12px 16px;margin:14px 0}
                .m{display:inline-block;min-width:56px;font-weight:700;font-family:monospace}
                .GET{color:#0b6e4f}.POST{color:#0b4f9e}.DELETE{color:#a11}.PATCH{color:#8a5a00}
                code,.p{font-family:ui-monospace,monospace;font-size:13px}
                table{border-collapse:collapse;width:100%;margin:6px 0}
                td,th{border-top:1px solid #eef0f4;padding:4px 6px;text-align:left;vertical-align:top;font-size:14px}
                .s{font-family:monospace;font-weight:700}
                a{color:#0b4f9e}
                </style></head><body><main>
                """);
        html.append("<h1>").append(esc(v1.at("/info/title").asText())).append("</h1>");
        html.append(markdown(v1.at("/info/description").asText()));
        html.append("<p>Base address <code>").append(esc(v1.at("/servers/0/url").asText()))
                .append("</code> — machine-readable: <a href=\"/v1/openapi.json\">/v1/openapi.json</a>, ")
                .append("<a href=\"/sandbox/openapi.json\">/sandbox/openapi.json</a></p>");
        operations(html, v1);
        html.append("<h2>").append(esc(sandbox.at("/info/title").asText())).append("</h2>");
        html.append("<p>Base address <code>").append(esc(sandbox.at("/servers/0/url").asText())).append("</code></p>");
        operations(html, sandbox);
        html.append("<h2>Schemas</h2>");
        for (Iterator<Map.Entry<String, JsonNode>> it = v1.at("/components/schemas").fields(); it.hasNext(); ) {
            var e = it.next();
            html.append("<div class=\"op\" id=\"schema-").append(esc(e.getKey())).append("\"><b>").append(esc(e.getKey()))
                    .append("</b>");
            schema(html, e.getValue());
            html.append("</div>");
        }
        return html.append("</main></body></html>").toString();
    }

    private static final java.util.Set<String> METHODS = java.util.Set.of("get", "put", "post", "delete", "patch", "head", "options");

    private static void operations(StringBuilder html, JsonNode doc) {
        for (Iterator<Map.Entry<String, JsonNode>> paths = doc.get("paths").fields(); paths.hasNext(); ) {
            var path = paths.next();
            for (Iterator<Map.Entry<String, JsonNode>> ops = path.getValue().fields(); ops.hasNext(); ) {
                var op = ops.next();
                if (!METHODS.contains(op.getKey())) continue; // a path's own servers or parameters
                String method = op.getKey().toUpperCase();
                JsonNode o = op.getValue();
                html.append("<div class=\"op\"><span class=\"m ").append(method).append("\">").append(method)
                        .append("</span> <span class=\"p\">").append(esc(path.getKey())).append("</span> — ")
                        .append(esc(o.path("summary").asText()));
                if (o.has("description")) html.append(markdown(o.get("description").asText()));
                if (o.has("parameters")) {
                    html.append("<table><tr><th>parameter</th><th>in</th><th>schema</th><th></th></tr>");
                    for (JsonNode p : o.get("parameters")) {
                        JsonNode param = resolve(doc, p);
                        html.append("<tr><td><code>").append(esc(param.path("name").asText())).append("</code></td><td>")
                                .append(esc(param.path("in").asText())).append("</td><td><code>")
                                .append(esc(param.path("schema").toString())).append("</code></td><td>")
                                .append(inline(param.path("description").asText())).append("</td></tr>");
                    }
                    html.append("</table>");
                }
                JsonNode body = o.at("/requestBody/content");
                if (!body.isMissingNode()) {
                    body.fields().forEachRemaining(c -> html.append("<p>Body <code>").append(esc(c.getKey()))
                            .append("</code>: <code>").append(esc(ref(c.getValue().path("schema")))).append("</code></p>"));
                }
                html.append("<table><tr><th>status</th><th>answer</th></tr>");
                o.path("responses").fields().forEachRemaining(r -> html.append("<tr><td class=\"s\">").append(esc(r.getKey()))
                        .append("</td><td>").append(inline(resolve(doc, r.getValue()).path("description").asText()))
                        .append("</td></tr>"));
                html.append("</table></div>");
            }
        }
    }

    /** The document's descriptions are CommonMark: rendered with HTML in them escaped and unsafe links dropped. */
    static String markdown(String text) {
        return HTML.render(MARKDOWN.parse(text)).strip();
    }

    /** As {@link #markdown}, without the paragraph around a one-paragraph text (a table cell). */
    static String inline(String text) {
        String html = markdown(text);
        boolean one = html.startsWith("<p>") && html.endsWith("</p>") && html.indexOf("<p>", 3) < 0;
        return one ? html.substring(3, html.length() - 4) : html;
    }

    private static void schema(StringBuilder html, JsonNode schema) {
        JsonNode props = schema.path("properties");
        if (props.isMissingNode()) {
            html.append(" <code>").append(esc(schema.toString())).append("</code>");
            return;
        }
        html.append("<table>");
        props.fields().forEachRemaining(p -> html.append("<tr><td><code>").append(esc(p.getKey())).append("</code></td><td><code>")
                .append(esc(ref(p.getValue()))).append("</code></td><td>").append(inline(p.getValue().path("description").asText()))
                .append("</td></tr>"));
        html.append("</table>");
    }

    private static String ref(JsonNode schema) {
        if (schema.has("$ref")) return schema.get("$ref").asText().replace("#/components/schemas/", "");
        return schema.toString();
    }

    private static JsonNode resolve(JsonNode doc, JsonNode node) {
        if (!node.has("$ref")) return node;
        return doc.at(node.get("$ref").asText().substring(1));
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
