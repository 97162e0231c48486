package dev.slipway.net;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * The addresses that are not the public internet, in IPv4 and IPv6: unspecified, loopback, private (RFC 1918),
 * shared (CGNAT, where Alibaba's metadata is), link-local (cloud metadata), unique-local (AWS's IPv6 metadata),
 * multicast and reserved ranges, and the IPv6 forms that carry one of those IPv4 addresses (IPv4-compatible,
 * NAT64). One table for the webhook guard ({@link AddressGuard}) and the sandbox's firewall, so that the two
 * cannot drift. IPv4-mapped addresses ({@code ::ffff:10.0.0.1}) are IPv4 to Java and on the wire.
 *
 * <p>IPv4's documentation ranges are not in it (192.0.2.0/24 is routed like any address; IPv6's 2001:db8::/32 is).
 */
public final class NonPublic {
    /** A range and what kind of address it holds, in words for an error. */
    public record Range(Cidr cidr, String kind) {}

    private static final List<Range> V4 = List.of(
            range("0.0.0.0/8", "unspecified"),
            range("10.0.0.0/8", "private"),
            range("100.64.0.0/10", "shared (CGNAT)"),
            range("127.0.0.0/8", "loopback"),
            range("169.254.0.0/16", "link-local"),
            range("172.16.0.0/12", "private"),
            range("192.0.0.0/24", "reserved"),
            range("192.168.0.0/16", "private"),
            range("198.18.0.0/15", "benchmarking"),
            range("224.0.0.0/4", "multicast"),
            range("240.0.0.0/4", "reserved"));

    private static final List<Range> V6 = List.of(
            range("::/128", "unspecified"),
            range("::1/128", "loopback"),
            range("64:ff9b:1::/48", "local NAT64"),
            range("100::/64", "discard-only"),
            range("2001:db8::/32", "documentation"),
            range("fc00::/7", "unique-local"),
            range("fe80::/10", "link-local"),
            range("fec0::/10", "site-local"),
            range("ff00::/8", "multicast"));

    /** IPv6 prefixes whose last 32 bits are an IPv4 address: IPv4-compatible ({@code ::a.b.c.d}) and NAT64. */
    private static final List<String> CARRIERS = List.of("::", "64:ff9b::");

    /** Every non-public range: IPv4's, IPv6's, then IPv4's inside each carrier. */
    public static final List<Range> RANGES = all();

    private NonPublic() {}

    /** The kind of a non-public address, or null when it is public. */
    public static String kind(InetAddress a) {
        for (Range r : RANGES) if (r.cidr().contains(a)) return r.kind();
        return null;
    }

    /** The ranges of one family ({@code ip} or {@code ip6}), without those inside another of the list (for one nftables set). */
    public static List<Cidr> outermost(String family) {
        List<Cidr> of = RANGES.stream().map(Range::cidr).filter(c -> c.family().equals(family)).toList();
        List<Cidr> out = new ArrayList<>();
        for (Cidr c : of) {
            if (of.stream().noneMatch(o -> !o.equals(c) && o.contains(c))) out.add(c);
        }
        return out;
    }

    private static List<Range> all() {
        List<Range> out = new ArrayList<>(V4);
        out.addAll(V6);
        for (String carrier : CARRIERS) {
            for (Range r : V4) {
                byte[] b = Cidr.parse(carrier).network().getAddress();
                System.arraycopy(r.cidr().network().getAddress(), 0, b, 12, 4);
                out.add(new Range(new Cidr(address(b), 96 + r.cidr().prefix()), r.kind()));
            }
        }
        return List.copyOf(out);
    }

    private static Range range(String cidr, String kind) {
        return new Range(Cidr.parse(cidr), kind);
    }

    private static InetAddress address(byte[] b) {
        try {
            return InetAddress.getByAddress(b);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
