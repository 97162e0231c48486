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
    public static final Setting GIT_APIS = Setting.flag("--git-apis", "SLIPWAY_GIT_APIS",
            "`github=https://api.github.com,gitlab=https://gitlab.com/api/v4,bitbucket=https://api.bitbucket.org/2.0`",
            "where each `source` kind's REST API is, for commit statuses (a Gitea or Forgejo: `github=https://<host>/api/v1`)");
    public static final String ENV = GIT_HOSTS.variable();
    public static final Map<String, String> DEFAULTS = inOrder("https://github.com", "https://gitlab.com", "https://bitbucket.org");
    public static final Map<String, String> SSH_DEFAULTS = inOrder("ssh://git@github.com", "ssh://git@gitlab.com", "ssh://git@bitbucket.org");
    public static final Map<String, String> API_DEFAULTS = inOrder("https://api.github.com", "https://gitlab.com/api/v4",
            "https://api.bitbucket.org/2.0");
    private static final Set<String> SCHEMES = Set.of("http", "https", "git");
    private static final Set<String> SSH_SCHEMES = Set.of("ssh");
    private static final Set<String> API_SCHEMES = Set.of("http", "https");

    private final Map<String, String> bases;
    private final Map<String, String> sshBases;
    private final Map<String, String> apiBases;

    private GitHosts(Map<String, String> bases, Map<String, String> sshBases, Map<String, String> apiBases) {
        this.bases = Collections.unmodifiableMap(bases);
        this.sshBases = Collections.unmodifiableMap(sshBases);
        this.apiBases = Collections.unmodifiableMap(apiBases);
    }

    public static GitHosts defaults() {
        return new GitHosts(new LinkedHashMap<>(DEFAULTS), new LinkedHashMap<>(SSH_DEFAULTS), new LinkedHashMap<>(API_DEFAULTS));
    }

    /** The defaults with the overrides of {@code spec} ({@code kind=url,kind=url}); null or blank means none. */
    public static GitHosts parse(String spec) {
        return defaults().withHttps(spec);
    }

    /** These hosts with the clone bases of {@code spec} over the defaults, and the same SSH bases. */
    public GitHosts withHttps(String spec) {
        return new GitHosts(overridden(DEFAULTS, spec, ENV, SCHEMES), sshBases, apiBases);
    }

    /** These hosts with the SSH bases of {@code spec} ({@code kind=ssh://user@host[:port],…}); null or blank: none. */
    public GitHosts withSsh(String spec) {
        return new GitHosts(bases, overridden(SSH_DEFAULTS, spec, GIT_SSH_HOSTS.variable(), SSH_SCHEMES), apiBases);
    }

    /** These hosts with the API bases of {@code spec} ({@code kind=https://api.host/path,…}); null or blank: none. */
    public GitHosts withApis(String spec) {
        return new GitHosts(bases, sshBases, overridden(API_DEFAULTS, spec, GIT_APIS.variable(), API_SCHEMES));
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
        return new GitHosts(copy, sshBases, apiBases);
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

    /** The base of the kind's REST API, e.g. {@code https://api.github.com}. */
    public String apiBase(String kind) {
        String base = apiBases.get(kind);
        if (base == null) throw new IllegalArgumentException("unknown host kind '" + kind + "'");
        return base;
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
                + (schemes.contains("ssh") ? "an ssh://user@host[:port] URL"
                        : schemes.contains("git") ? "an http, https or git URL with a host" : "an http or https URL with a host")
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

    /** github, gitlab and bitbucket, in that order. */
    private static Map<String, String> inOrder(String github, String gitlab, String bitbucket) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("github", github);
        m.put("gitlab", gitlab);
        m.put("bitbucket", bitbucket);
        return Collections.unmodifiableMap(m);
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder();
        bases.forEach((k, v) -> s.append(s.isEmpty() ? "" : ",").append(k).append('=').append(redact(v)));
        return s.toString();
    }
}
