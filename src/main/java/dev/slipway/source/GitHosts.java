package dev.slipway.source;

import dev.slipway.core.Setting;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Where each repository host kind is cloned from (DESIGN §3 Repo hosts). The defaults are the public
 * hosts; {@code SLIPWAY_GIT_HOSTS=github=http://127.0.0.1:3000,gitlab=...} overrides some of them, which
 * is how tests and on-premise installations point Slipway at their own git server.
 */
public final class GitHosts {
    public static final Setting GIT_HOSTS = Setting.flag("--git-hosts", "SLIPWAY_GIT_HOSTS",
            "`github=https://github.com,gitlab=https://gitlab.com,bitbucket=https://bitbucket.org`",
            "where each `source` kind is cloned from (`<base>/<owner>/<repo>.git`); point them at your own git server");
    public static final String ENV = GIT_HOSTS.variable();
    public static final Map<String, String> DEFAULTS = defaultsInOrder();
    private static final Set<String> SCHEMES = Set.of("http", "https", "git");

    private final Map<String, String> bases;

    private GitHosts(Map<String, String> bases) {
        this.bases = Collections.unmodifiableMap(bases);
    }

    public static GitHosts defaults() {
        return new GitHosts(new LinkedHashMap<>(DEFAULTS));
    }

    /** The defaults with the overrides of {@code spec} ({@code kind=url,kind=url}); null or blank means none. */
    public static GitHosts parse(String spec) {
        Map<String, String> bases = new LinkedHashMap<>(DEFAULTS);
        if (spec == null || spec.isBlank()) return new GitHosts(bases);
        Set<String> seen = new HashSet<>();
        for (String item : spec.split(",", -1)) {
            String entry = item.trim();
            int eq = entry.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException(ENV + ": expected kind=url, got '" + redact(entry) + "'");
            }
            String kind = entry.substring(0, eq).trim().toLowerCase(Locale.ROOT);
            if (!DEFAULTS.containsKey(kind)) {
                throw new IllegalArgumentException(ENV + ": unknown host kind '" + kind + "' (known: "
                        + String.join(", ", DEFAULTS.keySet()) + ")");
            }
            if (!seen.add(kind)) throw new IllegalArgumentException(ENV + ": '" + kind + "' is given twice");
            bases.put(kind, checkedBase(kind, entry.substring(eq + 1).trim()));
        }
        return new GitHosts(bases);
    }

    /** A copy with one kind pointing elsewhere (tests). */
    public GitHosts with(String kind, String base) {
        if (!DEFAULTS.containsKey(kind)) throw new IllegalArgumentException("unknown host kind '" + kind + "'");
        Map<String, String> copy = new LinkedHashMap<>(bases);
        copy.put(kind, checkedBase(kind, base));
        return new GitHosts(copy);
    }

    public Set<String> kinds() { return bases.keySet(); }

    public boolean supports(String kind) { return kind != null && bases.containsKey(kind); }

    public String base(String kind) {
        String base = bases.get(kind);
        if (base == null) throw new IllegalArgumentException("unknown host kind '" + kind + "'");
        return base;
    }

    /** {@code <base>/<owner>/<repo>.git}; the repo must already be valid ({@link GitNames#validRepo}). */
    public String cloneUrl(String kind, String repo) {
        return base(kind) + "/" + repo + ".git";
    }

    /** The base without any user-info, safe for messages and logs. */
    public String displayBase(String kind) {
        return redact(base(kind));
    }

    /** Removes {@code user:password@} from anything that looks like a URL. */
    static String redact(String text) {
        return text == null ? null : text.replaceAll("(?i)([a-z][a-z0-9+.-]*://)[^/@\\s]*@", "$1");
    }

    private static String checkedBase(String kind, String value) {
        IllegalArgumentException invalid = new IllegalArgumentException(ENV + ": " + kind
                + " must be an http, https or git URL with a host, got '" + redact(value) + "'");
        URI uri;
        try {
            uri = new URI(value);
        } catch (URISyntaxException e) {
            throw invalid;
        }
        String scheme = uri.getScheme() == null ? null : uri.getScheme().toLowerCase(Locale.ROOT);
        if (scheme == null || !SCHEMES.contains(scheme) || uri.getHost() == null || uri.getQuery() != null
                || uri.getFragment() != null) {
            throw invalid;
        }
        String base = value;
        while (base.endsWith("/")) base = base.substring(0, base.length() - 1);
        return base;
    }

    private static Map<String, String> defaultsInOrder() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("github", "https://github.com");
        m.put("gitlab", "https://gitlab.com");
        m.put("bitbucket", "https://bitbucket.org");
        return Collections.unmodifiableMap(m);
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder();
        bases.forEach((k, v) -> s.append(s.isEmpty() ? "" : ",").append(k).append('=').append(redact(v)));
        return s.toString();
    }
}
