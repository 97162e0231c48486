package dev.slipway.net;

import dev.slipway.core.Env;
import dev.slipway.core.Setting;

import java.net.InetAddress;
import java.util.List;

/**
 * The private, shared or reserved addresses the operator lets apps and builds reach
 * ({@code SLIPWAY_EGRESS_ALLOW}: addresses or CIDR ranges, comma-separated). Everything of that kind not
 * listed here is closed to tenants: the sandbox's firewall refuses it and a database address there is
 * refused.
 */
public record EgressAllow(List<Cidr> ranges) {
    public static final Setting ALLOW = Setting.env("SLIPWAY_EGRESS_ALLOW", "none",
            "private, shared (CGNAT), link-local or reserved addresses and ranges that apps and builds may reach all the "
                    + "same, comma-separated (`10.0.5.20,192.168.10.0/24,fd00:1::/64`); every other such address is closed "
                    + "to tenants, and this host's own addresses always are ([Isolation](#isolation-tenants-are-hostile)). A "
                    + "database `connect` URL may name such an address only when it is listed here "
                    + "([databases](#from-a-repository-to-a-running-app)), and on Kubernetes a database inside the cluster's "
                    + "ranges gets its egress rule only when listed here or on a configured admin server "
                    + "([NetworkPolicy](#the-kubernetes-runtime))");
    public static final String VARIABLE = ALLOW.variable();
    public static final EgressAllow NONE = new EgressAllow(List.of());

    public EgressAllow {
        ranges = List.copyOf(ranges);
    }

    public static EgressAllow fromEnv(Env env) {
        return parse(env.text(ALLOW, null));
    }

    /** Null or blank: none. A bad entry is an {@link IllegalArgumentException} that names the variable. */
    public static EgressAllow parse(String value) {
        List<Cidr> ranges = Cidr.parseList(value, VARIABLE);
        return ranges.isEmpty() ? NONE : new EgressAllow(ranges);
    }

    public boolean allows(InetAddress a) {
        for (Cidr c : ranges) if (c.contains(a)) return true;
        return false;
    }

    @Override
    public String toString() {
        return String.join(",", ranges.stream().map(Cidr::toString).toList());
    }
}
