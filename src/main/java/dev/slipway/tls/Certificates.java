package dev.slipway.tls;

import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The certificates this server serves, in memory: one per domain (loaded from the store, where any server
 * sharing it may have issued it) and the operator's wildcard for {@code *.<apps domain>}. The HTTPS
 * listener's key manager picks from here per SNI name, so a new certificate is served from the next handshake.
 */
public final class Certificates {
    /** One certificate with its key; {@code alias} is unique per certificate, so a replaced one is never mixed up. */
    record Entry(String alias, List<X509Certificate> chain, PrivateKey key) {
        String keyType() {
            String a = key.getAlgorithm();
            return a.equals("ECDSA") ? "EC" : a;
        }
    }

    private final String wildcardSuffix;
    private volatile Entry wildcard;
    private volatile Map<String, Entry> byDomain = Map.of();
    /** Every entry handed out in this run by alias: a handshake reads the chain and key after choosing the alias. */
    private final Map<String, Entry> byAlias = new ConcurrentHashMap<>();

    /** @param wildcard the operator's certificate for one label under {@code appsDomain}; null: none */
    Certificates(String appsDomain, Entry wildcard) {
        this.wildcardSuffix = "." + appsDomain.toLowerCase(Locale.ROOT);
        this.wildcard = wildcard;
        if (wildcard != null) byAlias.put(wildcard.alias(), wildcard);
    }

    /** The certificate for {@code host} (SNI name or Host without port); null when there is none. */
    Entry forHost(String host) {
        if (host == null) return wildcard;
        String h = host.toLowerCase(Locale.ROOT);
        Entry own = byDomain.get(h);
        if (own != null) return own;
        if (wildcard != null && h.endsWith(wildcardSuffix)) {
            String label = h.substring(0, h.length() - wildcardSuffix.length());
            if (!label.isEmpty() && label.indexOf('.') < 0) return wildcard;
        }
        return null;
    }

    /** Whether HTTPS can be served for {@code host}: what decides the HTTP→HTTPS redirect. */
    public boolean covers(String host) {
        return forHost(host) != null;
    }

    Entry byAlias(String alias) {
        return alias == null ? null : byAlias.get(alias);
    }

    /** The domain's certificate now, for tests and the dashboard; null when none is loaded. */
    public X509Certificate leaf(String domain) {
        Entry e = byDomain.get(domain.toLowerCase(Locale.ROOT));
        return e == null ? null : e.chain().getFirst();
    }

    /** What changes whenever a certificate is added, renewed or removed, or the HSTS hosts change. */
    String version(Set<String> hsts) {
        Entry w = wildcard;
        return (w == null ? "" : w.alias()) + "|" + new TreeSet<>(byDomain.values().stream().map(Entry::alias).toList())
                + "|" + new TreeSet<>(hsts);
    }

    /** Every certificate served now, with its key, for the edge process. */
    TlsState state(Set<String> hsts) {
        List<TlsState.Served> out = new ArrayList<>();
        Entry w = wildcard;
        if (w != null) out.add(served(null, w));
        byDomain.forEach((domain, e) -> out.add(served(domain, e)));
        return new TlsState(out, Set.copyOf(hsts));
    }

    private static TlsState.Served served(String domain, Entry e) {
        return new TlsState.Served(domain, e.alias(), Pem.chain(e.chain()), Pem.privateKey(e.key()));
    }

    /** Serves what the server sent (in the edge process); a certificate already parsed is not parsed again. */
    void apply(TlsState state) {
        Map<String, Entry> domains = new HashMap<>();
        Entry w = null;
        for (TlsState.Served s : state.certificates()) {
            Entry e = byAlias.get(s.alias());
            try {
                if (e == null) e = new Entry(s.alias(), Pem.chain(s.chainPem()), Pem.privateKey(s.keyPem()));
            } catch (IllegalArgumentException unreadable) {
                continue; // the server checked it when it loaded it: not served rather than stopping the rest
            }
            if (s.domain() == null) w = e;
            else domains.put(s.domain().toLowerCase(Locale.ROOT), e);
        }
        if (w != null) byAlias.putIfAbsent(w.alias(), w);
        wildcard = w;
        replace(domains);
    }

    /** Replaces the per-domain certificates with what the store holds now. */
    void replace(Map<String, Entry> loaded) {
        Map<String, Entry> next = new HashMap<>(loaded);
        for (Entry e : next.values()) byAlias.putIfAbsent(e.alias(), e);
        byDomain = Map.copyOf(next);
    }
}
