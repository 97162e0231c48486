package dev.slipway.net;

import java.net.Inet6Address;

/**
 * Who a client is, for the limits and throttles that count clients without a key: an IPv4 client by its address,
 * an IPv6 client by its /64. A provider routes a whole /64 (at least) to one customer, who can send each request
 * from another address of it; counting full IPv6 addresses would give that client 2^64 fresh quotas.
 */
public final class ClientPrefix {
    static final int IPV6_PREFIX = 64;

    private ClientPrefix() {}

    /**
     * {@code 198.51.100.7} for an IPv4 client (an IPv4-mapped IPv6 one too), {@code 2001:db8:5:6:0:0:0:0/64} for
     * any address of that /64, in any spelling (brackets and a zone are dropped); what is not an address literal
     * is returned as it is. Never looks a name up.
     */
    public static String of(String address) {
        if (address == null) return "";
        String s = address.strip();
        if (s.startsWith("[") && s.endsWith("]")) s = s.substring(1, s.length() - 1);
        int zone = s.indexOf('%');
        if (zone >= 0) s = s.substring(0, zone);
        Cidr one;
        try {
            one = Cidr.parse(s);
        } catch (IllegalArgumentException notALiteral) {
            return address;
        }
        if (!(one.network() instanceof Inet6Address)) return one.network().getHostAddress();
        return new Cidr(one.network(), IPV6_PREFIX).toString();
    }
}
