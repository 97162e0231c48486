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
    public static final Setting GIT_SSH_HOSTS = Setting.flag("--git-ssh-hosts", "SLIPWAY_GIT_SSH_HOSTS",
            "`github=ssh://git@github.com,gitlab=ssh://git@gitlab.com,bitbucket=ssh://git@bitbucket.org`",
            "where a project with an SSH deploy key clones each `source` kind from (`<base>/<owner>/<repo>.git`)");
    public static final String ENV = GIT_HOSTS.variable();
    public static final Map<String, String> DEFAULTS = defaultsInOrder();
    public static final Map<String, String> SSH_DEFAULTS = sshDefaultsInOrder();
    private static final Set<String> SCHEMES = Set.of("http", "https", "git");
    private static final Set<String> SSH_SCHEMES = Set.of("ssh");

    private final Map<String, String> bases;
    private final Map<String, String> sshBases;

    private GitHosts(Map<String, String> bases, Map<String, String> sshBases) {
        this.bases = Collections.unmodifiableMap(bases);
        this.sshBases = Collections.unmodifiableMap(sshBases);
    }

    public static GitHosts defaults() {
        return new GitHosts(new LinkedHashMap<>(DEFAULTS), new LinkedHashMap<>(SSH_DEFAULTS));
    }

    /** The defaults with the overrides of {@code spec} ({@code kind=url,kind=url}); null or blank means none. */
    public static GitHosts parse(String spec) {
        return defaults().withHttps(spec);
    }

    /** These hosts with the clone bases of {@code spec} over the defaults, and the same SSH bases. */
    public GitHosts withHttps(String spec) {
        return new GitHosts(overridden(DEFAULTS, spec, ENV, SCHEMES), new LinkedHashMap<>(sshBases));
    }

    /** These hosts with the SSH bases of {@code spec} ({@code kind=ssh://user@host[:port],…}); null or blank: none. */
    public GitHosts withSsh(String spec) {
        return new GitHosts(new LinkedHashMap<>(bases), overridden(SSH_DEFAULTS, spec, GIT_SSH_HOSTS.variable(), SSH_SCHEMES));
    }

    private static Map<String, String> overridden(Map<String, String> given, String spec, String env, Set<String> schemes) {
        Map<String, String> bases = new LinkedHashMap<>(given);
        if (spec == null || spec.isBlank()) return bases;
        Set<String> seen = new HashSet<>();
        for (String item : spec.split(",", -1)) {
            String entry = item.trim();
            int eq = entry.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException(env + ": expected kind=url, got '" + redact(entry) + "'");
            }
            String kind = entry.substring(0, eq).trim().toLowerCase(Locale.ROOT);
            if (!DEFAULTS.containsKey(kind)) {
                throw new IllegalArgumentException(env + ": unknown host kind '" + kind + "' (known: "
                        + String.join(", ", DEFAULTS.keySet()) + ")");
            }
            if (!seen.add(kind)) throw new IllegalArgumentException(env + ": '" + kind + "' is given twice");
            bases.put(kind, checkedBase(kind, entry.substring(eq + 1).trim(), env, schemes));
        }
        return bases;
    }

    /** A copy with one kind pointing elsewhere (tests). */
    public GitHosts with(String kind, String base) {
        if (!DEFAULTS.containsKey(kind)) throw new IllegalArgumentException("unknown host kind '" + kind + "'");
        Map<String, String> copy = new LinkedHashMap<>(bases);
        copy.put(kind, checkedBase(kind, base, ENV, SCHEMES));
        return new GitHosts(copy, new LinkedHashMap<>(sshBases));
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

    /** {@code <ssh base>/<owner>/<repo>.git}, for a project with a deploy key. */
    public String sshCloneUrl(String kind, String repo) {
        String base = sshBases.get(kind);
        if (base == null) throw new IllegalArgumentException("unknown host kind '" + kind + "'");
        return base + "/" + repo + ".git";
    }

    /** The base without any user-info, safe for messages and logs. */
    public String displayBase(String kind) {
        return redact(base(kind));
    }

    /** Removes {@code user:password@} from anything that looks like a URL. */
    static String redact(String text) {
        return text == null ? null : text.replaceAll("(?i)([a-z][a-z0-9+.-]*://)[^/@\\s]*@", "$1");
    }

    private static String checkedBase(String kind, String value, String env, Set<String> schemes) {
        IllegalArgumentException invalid = new IllegalArgumentException(env + ": " + kind + " must be "
                + (schemes.contains("ssh") ? "an ssh://user@host[:port] URL" : "an http, https or git URL with a host")
                + ", got '" + redact(value) + "'");
        URI uri;
        try {
            uri = new URI(value);
        } catch (URISyntaxException e) {
            throw invalid;
        }
        String scheme = uri.getScheme() == null ? null : uri.getScheme().toLowerCase(Locale.ROOT);
        if (scheme == null || !schemes.contains(scheme) || uri.getHost() == null || uri.getQuery() != null
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

    private static Map<String, String> sshDefaultsInOrder() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("github", "ssh://git@github.com");
        m.put("gitlab", "ssh://git@gitlab.com");
        m.put("bitbucket", "ssh://git@bitbucket.org");
        return Collections.unmodifiableMap(m);
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder();
        bases.forEach((k, v) -> s.append(s.isEmpty() ? "" : ",").append(k).append('=').append(redact(v)));
        return s.toString();
    }
}
