package dev.slipway.build.toolchain;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.core.Json;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Reads package metadata and tarballs from an npm registry, the platform's own requests (no tenant's config). A
 * request whose connection failed (refused, reset, cut short, timed out) or that a server error answered is made
 * once more; an answer that refuses (a 404) or a download that does not match its integrity is final.
 */
final class NpmRegistry {
    /** What a version's metadata says about its tarball and programs. */
    record Release(String name, Semver.Version version, URI tarball, String integrity, Map<String, String> bin) {}

    private static final Duration CONNECT = Duration.ofSeconds(10);
    private static final Duration METADATA = Duration.ofSeconds(30);
    private static final Duration DOWNLOAD = Duration.ofMinutes(10);

    private final URI base;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(CONNECT)
            .followRedirects(HttpClient.Redirect.NORMAL).build();

    NpmRegistry(URI base) {
        String s = base.toString();
        this.base = URI.create(s.endsWith("/") ? s : s + "/");
    }

    URI base() {
        return base;
    }

    /** Every released version of a package (prereleases left out). */
    Map<Semver.Version, Release> releases(String name) throws IOException {
        return twice(() -> fetchReleases(name));
    }

    private Map<Semver.Version, Release> fetchReleases(String name) throws IOException {
        URI uri = base.resolve(URLEncoder.encode(name, StandardCharsets.UTF_8).replace("%40", "@"));
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(METADATA)
                .header("Accept", "application/vnd.npm.install-v1+json").GET().build();
        HttpResponse<InputStream> response = send(request);
        JsonNode root;
        try (InputStream body = response.body()) {
            if (response.statusCode() != 200) throw answered(uri, response.statusCode());
            root = Json.MAPPER.readTree(body);
        }
        Map<Semver.Version, Release> out = new LinkedHashMap<>();
        root.path("versions").properties().forEach(e -> Semver.Version.parse(e.getKey()).ifPresent(v -> {
            JsonNode meta = e.getValue();
            JsonNode dist = meta.path("dist");
            if (!dist.path("tarball").isTextual()) return;
            out.put(v, new Release(name, v, URI.create(dist.get("tarball").asText()), dist.path("integrity").asText(null),
                    bins(name, meta.get("bin"))));
        }));
        return out;
    }

    /**
     * Downloads a release's tarball to {@code target} and checks it against the registry's sha512 integrity,
     * and against {@code extraHash} ({@code sha512.<hex>} or {@code sha256.<hex>}, corepack's form) when given.
     */
    void download(Release r, Path target, String extraHash) throws IOException {
        if (r.integrity() == null || !r.integrity().startsWith("sha512-")) {
            throw new IOException(r.name() + "@" + r.version() + " has no sha512 integrity in the registry; not trusted");
        }
        twice(() -> {
            fetch(r, target, extraHash);
            return null;
        });
    }

    private void fetch(Release r, Path target, String extraHash) throws IOException {
        MessageDigest sha512 = digest("SHA-512");
        MessageDigest extra = extraHash == null ? null : digest(algorithm(extraHash.substring(0, extraHash.indexOf('.'))));
        HttpResponse<InputStream> response = send(HttpRequest.newBuilder(r.tarball()).timeout(DOWNLOAD).GET().build());
        try (InputStream body = response.body()) {
            if (response.statusCode() != 200) throw answered(r.tarball(), response.statusCode());
            InputStream in = new DigestInputStream(body, sha512);
            if (extra != null) in = new DigestInputStream(in, extra);
            try (OutputStream out = Files.newOutputStream(target)) {
                in.transferTo(out);
            }
        }
        String got = "sha512-" + Base64.getEncoder().encodeToString(sha512.digest());
        if (!got.equals(r.integrity())) {
            throw new Final(r.tarball() + " does not match the registry's integrity (expected " + r.integrity() + ", got " + got + ")");
        }
        if (extra != null) {
            String hex = HexFormat.of().formatHex(extra.digest());
            if (!extraHash.substring(extraHash.indexOf('.') + 1).equalsIgnoreCase(hex)) {
                throw new Final(r.name() + "@" + r.version() + " does not match the hash in package.json's packageManager ("
                        + extraHash + ")");
            }
        }
    }

    /** A failure that asking again would only repeat. */
    private static final class Final extends IOException {
        Final(String message) {
            super(message);
        }
    }

    private interface Fetch<T> {
        T run() throws IOException;
    }

    private static <T> T twice(Fetch<T> fetch) throws IOException {
        try {
            return fetch.run();
        } catch (Final e) {
            throw e;
        } catch (IOException e) {
            if (Thread.currentThread().isInterrupted()) throw e;
            return fetch.run();
        }
    }

    /** A server error is worth asking again; any other status is the registry's answer. */
    private static IOException answered(URI uri, int status) {
        String message = uri + " answered HTTP " + status;
        return status >= 500 ? new IOException(message) : new Final(message);
    }

    private HttpResponse<InputStream> send(HttpRequest request) throws IOException {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofInputStream());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while fetching " + request.uri(), e);
        }
    }

    static String algorithm(String name) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "sha1" -> "SHA-1";
            case "sha224" -> "SHA-224";
            case "sha256" -> "SHA-256";
            case "sha384" -> "SHA-384";
            case "sha512" -> "SHA-512";
            default -> throw new IllegalArgumentException("unknown hash " + name);
        };
    }

    private static MessageDigest digest(String algorithm) {
        try {
            return MessageDigest.getInstance(algorithm);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** package.json's bin: a string (named after the package) or an object of name → path. */
    private static Map<String, String> bins(String name, JsonNode bin) {
        Map<String, String> out = new LinkedHashMap<>();
        if (bin == null) return out;
        if (bin.isTextual()) out.put(name.substring(name.lastIndexOf('/') + 1), bin.asText());
        else bin.properties().forEach(e -> {
            if (e.getValue().isTextual()) out.put(e.getKey(), e.getValue().asText());
        });
        return out;
    }
}
