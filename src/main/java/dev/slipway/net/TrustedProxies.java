package dev.slipway.net;

import dev.slipway.core.Env;
import dev.slipway.core.Setting;

import java.net.InetAddress;
import java.util.List;

/**
 * The proxies the operator runs in front of Slipway ({@code SLIPWAY_TRUSTED_PROXIES}: addresses or CIDR ranges,
 * comma-separated). A connection from one of them may say who its client is ({@code X-Forwarded-For} and the
 * rest are kept, and Slipway's own entry appended); from anyone else those fields are the client's own claims and
 * are replaced with what the listener saw. Connections from them are not held to the per-client connection cap:
 * one proxy carries many clients.
 */
public record TrustedProxies(List<Cidr> ranges) {
    public static final Setting PROXIES = Setting.env("SLIPWAY_TRUSTED_PROXIES", "none",
            "addresses or CIDR ranges of the proxies in front of Slipway (`10.0.0.5,192.168.1.0/24`); only their "
                    + "`X-Forwarded-For`, `-Proto`, `-Host`, `-Port`, `Forwarded` and `Via` are believed and passed on to "
                    + "apps (with the router's appended), and they are not held to one client's share of connections "
                    + "([The router](#the-router))");
    public static final String VARIABLE = PROXIES.variable();
    public static final TrustedProxies NONE = new TrustedProxies(List.of());

    public TrustedProxies {
        ranges = List.copyOf(ranges);
    }

    public static TrustedProxies fromEnv(Env env) {
        return parse(env.text(PROXIES, null));
    }

    /** Null or blank: none. A bad entry is an {@link IllegalArgumentException} that names the variable. */
    public static TrustedProxies parse(String value) {
        List<Cidr> ranges = Cidr.parseList(value, VARIABLE);
        return ranges.isEmpty() ? NONE : new TrustedProxies(ranges);
    }

    public boolean any() {
        return !ranges.isEmpty();
    }

    public boolean trusts(InetAddress a) {
        for (Cidr c : ranges) if (c.contains(a)) return true;
        return false;
    }

    /**
     * Who sent a request that arrived from {@code peer}: the client {@code forwardedFor} names when the peer is a
     * trusted proxy ({@link #client}), else the peer itself, whatever it claims.
     */
    public String behind(String peer, String forwardedFor) {
        if (ranges.isEmpty()) return peer;
        InetAddress a;
        try {
            a = Cidr.parse(peer).network();
        } catch (IllegalArgumentException notAnAddress) {
            return peer;
        }
        return trusts(a) ? client(forwardedFor, peer) : peer;
    }

    /**
     * The client's address behind a trusted proxy, as nginx's {@code real_ip_recursive on} finds it: the last
     * entry of {@code forwardedFor} (the proxies' comma-separated list) that is not a trusted proxy itself, or
     * the first entry when all are; {@code peer} (the proxy) when the list is empty. An entry that is not an
     * address literal ends the search there: it is what the nearest untrusted hop claimed.
     */
    public String client(String forwardedFor, String peer) {
        if (forwardedFor == null || forwardedFor.isBlank()) return peer;
        String[] entries = forwardedFor.split(",");
        String first = null;
        for (int i = entries.length - 1; i >= 0; i--) {
            String e = entries[i].strip();
            if (e.isEmpty()) continue;
            first = e;
            InetAddress a;
            try {
                a = Cidr.parse(e).network();
            } catch (IllegalArgumentException notAnAddress) {
                return e;
            }
            if (!trusts(a)) return e;
        }
        return first == null ? peer : first;
    }

    @Override
    public String toString() {
        return String.join(",", ranges.stream().map(Cidr::toString).toList());
    }
}
