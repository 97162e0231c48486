package dev.slipway.net;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The private, shared or reserved addresses the operator lets apps and builds reach
 * ({@code SLIPWAY_EGRESS_ALLOW}: addresses or CIDR ranges, comma-separated). Everything of that kind not
 * listed here is closed to tenants: the sandbox's firewall refuses it and a database address there is
 * refused.
 */
public record EgressAllow(List<Cidr> ranges) {
    public static final String VARIABLE = "SLIPWAY_EGRESS_ALLOW";
    public static final EgressAllow NONE = new EgressAllow(List.of());

    public EgressAllow {
        ranges = List.copyOf(ranges);
    }

    /** Null or blank: none. A bad entry is an {@link IllegalArgumentException} that names the variable. */
    public static EgressAllow parse(String value) {
        if (value == null || value.isBlank()) return NONE;
        List<Cidr> out = new ArrayList<>();
        for (String part : value.split(",")) {
            if (part.isBlank()) continue;
            try {
                out.add(Cidr.parse(part));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(VARIABLE + ": " + e.getMessage());
            }
        }
        return new EgressAllow(out);
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
