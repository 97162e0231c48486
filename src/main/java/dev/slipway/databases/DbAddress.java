package dev.slipway.databases;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Where a database is and who connects: parsed from {@code postgres://}, {@code postgresql://},
 * {@code mysql://}, {@code mariadb://} or the JDBC forms ({@code jdbc:postgresql://},
 * {@code jdbc:mysql://}, {@code jdbc:mariadb://}; user and password also as query parameters).
 * Parse errors never repeat the URL (it may carry a password).
 *
 * @param database null when the URL names none
 * @param user     null when the URL names none
 * @param password null when the URL carries none
 * @param params   the remaining query parameters (never user or password)
 */
public record DbAddress(DbKind kind, String host, int port, String database, String user, String password,
                        Map<String, String> params) {
    private static final Pattern PARAM_NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_.-]{0,63}");

    public DbAddress {
        params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
    }

    public static DbAddress parse(String raw) {
        if (raw == null || raw.isBlank()) throw new IllegalArgumentException("is empty");
        String s = raw.strip();
        if (s.regionMatches(true, 0, "jdbc:", 0, 5)) s = s.substring(5);
        int colon = s.indexOf("://");
        if (colon <= 0) throw new IllegalArgumentException("must be a URL such as postgres://user@host:5432/name or mysql://user@host:3306/name");
        DbKind kind = DbKind.ofScheme(s.substring(0, colon))
                .orElseThrow(() -> new IllegalArgumentException("must start with postgres://, postgresql://, mysql:// or mariadb:// (or their jdbc: forms)"));
        URI uri;
        try {
            uri = new URI(s);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("is not a valid URL (percent-encode special characters in the user and password)");
        }
        String host = uri.getHost();
        if (host == null || host.isBlank()) throw new IllegalArgumentException("has no host (or a host that is not a valid name, or several hosts)");
        int port = uri.getPort() == -1 ? kind.defaultPort() : uri.getPort();
        String user = null;
        String password = null;
        if (uri.getRawUserInfo() != null) {
            String info = uri.getRawUserInfo();
            int sep = info.indexOf(':');
            user = decode(sep < 0 ? info : info.substring(0, sep));
            if (sep >= 0) password = decode(info.substring(sep + 1));
        }
        String path = uri.getRawPath() == null ? "" : uri.getRawPath();
        if (path.startsWith("/")) path = path.substring(1);
        if (path.contains("/")) throw new IllegalArgumentException("has a path with more than a database name");
        String database = path.isEmpty() ? null : decode(path);
        Map<String, String> params = new LinkedHashMap<>();
        if (uri.getRawQuery() != null && !uri.getRawQuery().isEmpty()) {
            for (String pair : uri.getRawQuery().split("&")) {
                if (pair.isEmpty()) continue;
                int eq = pair.indexOf('=');
                String name = decode(eq < 0 ? pair : pair.substring(0, eq));
                String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
                switch (name.toLowerCase(Locale.ROOT)) {
                    case "user" -> user = value;
                    case "password" -> password = value;
                    default -> {
                        if (!PARAM_NAME.matcher(name).matches()) throw new IllegalArgumentException("has a query parameter with an invalid name");
                        params.put(name, value);
                    }
                }
            }
        }
        if (user != null && user.isEmpty()) user = null;
        return new DbAddress(kind, host, port, database, user, password, params);
    }

    /** The same server and options, with another database, user and password. */
    public DbAddress with(String database, String user, String password) {
        return new DbAddress(kind, host, port, database, user, password, params);
    }

    /** The JDBC URL without credentials (they go in connection properties). */
    public String jdbcUrl() {
        return kind.jdbcPrefix() + host + ":" + port + "/" + (database == null ? "" : encode(database)) + query();
    }

    /** The {@code DATABASE_URL} an app receives: {@code postgres://user:password@host:port/database}. */
    public String appUrl() {
        StringBuilder s = new StringBuilder(kind.label()).append("://");
        if (user != null) {
            s.append(encode(user));
            if (password != null) s.append(':').append(encode(password));
            s.append('@');
        }
        return s.append(host).append(':').append(port).append('/')
                .append(database == null ? "" : encode(database)).append(query()).toString();
    }

    /** host:port/database, for messages (no credentials). */
    public String where() {
        return host + ":" + port + (database == null ? "" : "/" + database);
    }

    public Optional<String> passwordIfAny() {
        return Optional.ofNullable(password);
    }

    /** The options as a query string ({@code ?a=b&c=d}), or empty. */
    public String query() {
        if (params.isEmpty()) return "";
        StringBuilder s = new StringBuilder();
        params.forEach((k, v) -> s.append(s.isEmpty() ? '?' : '&').append(encode(k)).append('=').append(encode(v)));
        return s.toString();
    }

    /** Parses a stored query string (as {@link #query()} wrote it) back into options. */
    static Map<String, String> parseQuery(String query) {
        Map<String, String> out = new LinkedHashMap<>();
        if (query == null || query.isEmpty()) return out;
        for (String pair : query.replaceFirst("^\\?", "").split("&")) {
            if (pair.isEmpty()) continue;
            int eq = pair.indexOf('=');
            out.put(decode(eq < 0 ? pair : pair.substring(0, eq)), eq < 0 ? "" : decode(pair.substring(eq + 1)));
        }
        return out;
    }

    static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static String decode(String s) {
        try {
            return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("has an invalid percent-encoding");
        }
    }

    @Override
    public String toString() {
        return kind.label() + "://" + (user == null ? "" : user + (password == null ? "" : ":****") + "@") + where();
    }
}
