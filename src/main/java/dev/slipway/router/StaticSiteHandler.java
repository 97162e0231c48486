package dev.slipway.router;

import java.nio.file.InvalidPathException;
import java.util.List;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.http.MimeTypes;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Map;

/**
 * Serves a built static site: files under its root, with clean URLs ({@code /about} is {@code about.html}
 * or {@code about/index.html}); a path that names no file gets the site's {@code 404.html} with status 404,
 * or {@code index.html} for a single-page app's client-side routes, or a plain 404. Hashed asset folders
 * ({@code /assets/} of Vite, {@code /_next/static/} of Next) are cached for a year, everything else
 * revalidates. Nothing outside the root is ever served, symbolic links included. The site's own {@link SiteRules} come
 * first: a redirect answers before any file is looked for, and its headers are set on every answer to their paths.
 */
final class StaticSiteHandler {
    static final String IMMUTABLE = "public, max-age=31536000, immutable";
    static final String REVALIDATE = "no-cache";
    private static final Map<String, String> EXTRA_TYPES = Map.of(
            "mjs", "text/javascript", "js", "text/javascript", "webmanifest", "application/manifest+json",
            "woff2", "font/woff2", "woff", "font/woff", "wasm", "application/wasm", "map", "application/json",
            "avif", "image/avif", "webp", "image/webp");

    private static final List<String> HASHED = List.of("/assets/", "/_next/static/");
    static final String NOT_FOUND_PAGE = "/404.html";

    void handle(Request request, Response response, Callback callback, Target.StaticSite site) {
        Path root = site.root();
        String path = Request.getPathInContext(request);
        site.rules().headersFor(path, response.getHeaders()::put);
        String method = request.getMethod();
        if (!HttpMethod.GET.is(method) && !HttpMethod.HEAD.is(method)) {
            response.getHeaders().put(HttpHeader.ALLOW, "GET, HEAD");
            ErrorPages.write(response, callback, 405, "Method not allowed", "A static site answers GET and HEAD only.", "");
            return;
        }
        SiteRules.Redirected redirected = site.rules().redirect(path, request.getHttpURI().getQuery());
        if (redirected != null) {
            response.setStatus(redirected.status());
            response.getHeaders().put(HttpHeader.LOCATION, redirected.location());
            response.getHeaders().put(HttpHeader.CONTENT_LENGTH, 0);
            response.write(true, null, callback);
            return;
        }
        boolean spaFallback = site.spaFallback();
        Path file = page(root, path);
        int status = 200;
        if (file == null) {
            Path notFound = resolve(root, NOT_FOUND_PAGE);
            if (notFound != null && !isHashedAsset(path)) {
                file = notFound;
                status = 404;
            } else if (spaFallback && wantsPage(request, path)) {
                file = resolve(root, "/index.html");
            }
            if (file == null) {
                ErrorPages.write(response, callback, 404, "Not found", "No file at " + path + ".", "");
                return;
            }
        }
        try {
            send(request, response, callback, root, file, path, status);
        } catch (IOException e) {
            callback.failed(e);
        }
    }

    /** The file a path names: itself, else (without an extension) {@code <path>.html} or {@code <path>/index.html}. */
    static Path page(Path root, String path) {
        Path file = resolve(root, path);
        if (file != null || path == null || path.endsWith("/")) return file;
        String last = path.substring(path.lastIndexOf('/') + 1);
        if (last.isEmpty() || last.endsWith(".html")) return null;
        file = resolve(root, path + ".html");
        return file != null ? file : resolve(root, path + "/index.html");
    }

    private static boolean isHashedAsset(String path) {
        return HASHED.stream().anyMatch(path::startsWith);
    }

    /** A regular file inside the root for a request path, or null. Follows links only when they stay inside. */
    static Path resolve(Path root, String requestPath) {
        if (requestPath == null || requestPath.indexOf('\0') >= 0) return null;
        String rel = requestPath.startsWith("/") ? requestPath.substring(1) : requestPath;
        if (rel.isEmpty() || rel.endsWith("/")) rel = rel + "index.html";
        Path candidate;
        try {
            candidate = root.resolve(rel).normalize();
        } catch (InvalidPathException e) {
            return null;
        }
        if (!candidate.startsWith(root)) return null;
        try {
            Path real = candidate.toRealPath();
            if (!real.startsWith(root.toRealPath())) return null;
            return Files.isRegularFile(real, LinkOption.NOFOLLOW_LINKS) ? real : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** Client-side routes get index.html; a missing asset stays a 404 rather than HTML posing as a script. */
    private static boolean wantsPage(Request request, String path) {
        if (isHashedAsset(path)) return false;
        String last = path.substring(path.lastIndexOf('/') + 1);
        if (last.indexOf('.') < 0) return true;
        String accept = request.getHeaders().get(HttpHeader.ACCEPT);
        return accept != null && accept.contains("text/html");
    }

    private void send(Request request, Response response, Callback callback, Path root, Path file, String path,
                      int status) throws IOException {
        BasicFileAttributes attrs = Files.readAttributes(file, BasicFileAttributes.class);
        Instant modified = attrs.lastModifiedTime().toInstant();
        String etag = "W/\"" + Long.toHexString(attrs.size()) + "-" + Long.toHexString(modified.toEpochMilli()) + "\"";
        var headers = response.getHeaders();
        // the site's own rules, set before, win over these defaults
        if (!headers.contains(HttpHeader.CONTENT_TYPE)) headers.put(HttpHeader.CONTENT_TYPE, contentType(file));
        if (!headers.contains(HttpHeader.CACHE_CONTROL)) {
            headers.put(HttpHeader.CACHE_CONTROL, status == 200 ? cacheControl(file, path) : REVALIDATE);
        }
        headers.put(HttpHeader.ETAG, etag);
        headers.put(HttpHeader.LAST_MODIFIED, DateTimeFormatter.RFC_1123_DATE_TIME.format(modified.atOffset(ZoneOffset.UTC)));
        if (!headers.contains("X-Content-Type-Options")) headers.put("X-Content-Type-Options", "nosniff");
        String ifNoneMatch = request.getHeaders().get(HttpHeader.IF_NONE_MATCH);
        if (status == 200 && ifNoneMatch != null && (ifNoneMatch.equals(etag) || ifNoneMatch.contains(etag) || ifNoneMatch.equals("*"))) {
            response.setStatus(304);
            response.write(true, null, callback);
            return;
        }
        response.setStatus(status);
        headers.put(HttpHeader.CONTENT_LENGTH, attrs.size());
        if (HttpMethod.HEAD.is(request.getMethod())) {
            response.write(true, null, callback);
            return;
        }
        Content.copy(Content.Source.from(file), response, callback);
    }

    private static String cacheControl(Path file, String path) {
        if (isHashedAsset(path) && !file.getFileName().toString().endsWith(".html")) return IMMUTABLE;
        return REVALIDATE;
    }

    static String contentType(Path file) {
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        int dot = name.lastIndexOf('.');
        String ext = dot < 0 ? "" : name.substring(dot + 1);
        String type = EXTRA_TYPES.get(ext);
        if (type == null) type = MimeTypes.DEFAULTS.getMimeByExtension(name);
        if (type == null) return "application/octet-stream";
        boolean textual = type.startsWith("text/") || type.equals("application/json") || type.equals("image/svg+xml")
                || type.equals("application/manifest+json") || type.equals("application/xml");
        return textual && !type.contains("charset") ? type + ";charset=utf-8" : type;
    }
}
