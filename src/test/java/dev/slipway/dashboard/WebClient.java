package dev.slipway.dashboard;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** A cookie-keeping HTTP client for dashboard pages, that does not follow redirects (tests look at them). */
public final class WebClient {
    private static final Pattern CSRF = Pattern.compile("name=\"_csrf\" value=\"([^\"]+)\"");

    private final String base;
    private final CookieManager cookies = new CookieManager();
    private final HttpClient http;

    public WebClient(String base) {
        this.base = base;
        this.http = HttpClient.newBuilder().cookieHandler(cookies).followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(Duration.ofSeconds(5)).build();
    }

    public HttpResponse<String> get(String path) {
        return send(HttpRequest.newBuilder(URI.create(base + path)).GET().build());
    }

    /** A read with {@code Accept: text/event-stream}, to the end of the stream. */
    HttpResponse<String> stream(String path) {
        return send(HttpRequest.newBuilder(URI.create(base + path)).header("Accept", "text/event-stream")
                .timeout(Duration.ofSeconds(30)).GET().build());
    }

    public HttpResponse<String> post(String path, Map<String, String> fields) {
        return postEncoded(path, fields.entrySet().stream()
                .map(e -> enc(e.getKey()) + "=" + enc(e.getValue())).collect(Collectors.joining("&")));
    }

    /** A form whose names may repeat (checkboxes): {@code name, value, name, value, …}. */
    HttpResponse<String> post(String path, String... pairs) {
        StringBuilder body = new StringBuilder();
        for (int i = 0; i < pairs.length; i += 2) {
            body.append(i == 0 ? "" : "&").append(enc(pairs[i])).append('=').append(enc(pairs[i + 1]));
        }
        return postEncoded(path, body.toString());
    }

    private HttpResponse<String> postEncoded(String path, String body) {
        return send(HttpRequest.newBuilder(URI.create(base + path))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    /** A field or a file of a multipart form; {@code filename} null for a text field. */
    record Part(String name, String filename, byte[] content) {
        static Part field(String name, String value) {
            return new Part(name, null, value.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** A {@code multipart/form-data} form, as a browser sends one with its files. */
    HttpResponse<String> postMultipart(String path, List<Part> parts) {
        String boundary = "----slipwaytest" + UUID.randomUUID().toString().replace("-", "");
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (Part part : parts) {
            body.writeBytes(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + part.name() + "\""
                    + (part.filename() == null ? "" : "; filename=\"" + part.filename() + "\"\r\nContent-Type: application/octet-stream")
                    + "\r\n\r\n").getBytes(StandardCharsets.UTF_8));
            body.writeBytes(part.content());
            body.writeBytes("\r\n".getBytes(StandardCharsets.UTF_8));
        }
        body.writeBytes(("--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
        return send(HttpRequest.newBuilder(URI.create(base + path))
                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray())).build());
    }

    /** The Cookie header this client sends to the dashboard, for a request written by hand. */
    String cookieHeader() {
        return cookies.getCookieStore().get(URI.create(base + "/dashboard/")).stream()
                .map(c -> c.getName() + "=" + c.getValue()).collect(Collectors.joining("; "));
    }

    /** Signs in through the form (reading its token first); returns the answer to the form. */
    public HttpResponse<String> signIn(String email, String password) {
        String token = csrf(get("/dashboard/sign-in").body());
        return post("/dashboard/sign-in", form("_csrf", token, "email", email, "password", password));
    }

    /** The form token in a page. */
    public static String csrf(String html) {
        Matcher m = CSRF.matcher(html);
        if (!m.find()) throw new AssertionError("no form token in the page:\n" + html);
        return m.group(1);
    }

    public static Map<String, String> form(String... pairs) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) m.put(pairs[i], pairs[i + 1]);
        return m;
    }

    private HttpResponse<String> send(HttpRequest request) {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new AssertionError(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
