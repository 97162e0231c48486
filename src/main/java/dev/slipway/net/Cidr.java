package dev.slipway.net;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** An address range in CIDR form ({@code 10.1.0.0/16}, {@code fd00::/8}); a bare address is its own /32 or /128. */
public record Cidr(InetAddress network, int prefix) {

    public Cidr {
        int bits = network.getAddress().length * 8;
        if (prefix < 0 || prefix > bits) throw new IllegalArgumentException("a prefix length from 0 to " + bits);
        network = masked(network, prefix);
    }

    /**
     * A comma-separated list of addresses and ranges, as a setting holds it; null or blank is none. A bad entry
     * is an {@link IllegalArgumentException} that names {@code variable}.
     */
    public static List<Cidr> parseList(String value, String variable) {
        if (value == null || value.isBlank()) return List.of();
        List<Cidr> out = new ArrayList<>();
        for (String part : value.split(",")) {
            if (part.isBlank()) continue;
            try {
                out.add(parse(part));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(variable + ": " + e.getMessage());
            }
        }
        return List.copyOf(out);
    }

    /** Parses a literal address or range; never resolves a host name. */
    public static Cidr parse(String text) {
        String s = text.strip();
        int slash = s.indexOf('/');
        String address = slash < 0 ? s : s.substring(0, slash);
        if (!isLiteral(address)) throw new IllegalArgumentException("'" + text + "' is not an IP address or CIDR range");
        InetAddress a;
        try {
            a = InetAddress.getByName(address);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("'" + text + "' is not an IP address or CIDR range");
        }
        int bits = a.getAddress().length * 8;
        int prefix = bits;
        if (slash >= 0) {
            try {
                prefix = Integer.parseInt(s.substring(slash + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + text + "' has no prefix length after '/'");
            }
            if (prefix < 0 || prefix > bits) throw new IllegalArgumentException("'" + text + "': the prefix length must be from 0 to " + bits);
        }
        return new Cidr(a, prefix);
    }

    public boolean contains(InetAddress a) {
        byte[] net = network.getAddress();
        byte[] other = a.getAddress();
        if (net.length != other.length) return false;
        return Arrays.equals(net, masked(a, prefix).getAddress());
    }

    /** Whether all of {@code other} is in this range. */
    public boolean contains(Cidr other) {
        return other.prefix >= prefix && contains(other.network);
    }

    /** {@code ip} or {@code ip6}: the nftables family word of this range. */
    public String family() {
        return network.getAddress().length == 4 ? "ip" : "ip6";
    }

    @Override
    public String toString() {
        return network.getHostAddress() + "/" + prefix;
    }

    private static boolean isLiteral(String s) {
        if (s.isEmpty()) return false;
        if (s.indexOf(':') >= 0) return s.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == ':' || c == '.');
        return s.chars().allMatch(c -> (c >= '0' && c <= '9') || c == '.') && s.split("\\.", -1).length == 4;
    }

    private static InetAddress masked(InetAddress a, int prefix) {
        byte[] b = a.getAddress();
        for (int i = 0; i < b.length; i++) {
            int keep = Math.max(0, Math.min(8, prefix - i * 8));
            b[i] &= (byte) (0xff << (8 - keep));
        }
        try {
            return InetAddress.getByAddress(b);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
