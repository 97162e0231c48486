package dev.slipway.net;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;

/**
 * Refuses webhook targets inside the operator's network (SSRF): a URL whose host resolves to any
 * loopback, private (RFC 1918, CGNAT), link-local, unique-local, multicast, unspecified or reserved
 * address, in IPv4 or IPv6 (IPv4-mapped, -compatible and NAT64 forms included). Every address the
 * name resolves to must be public, so a name cannot smuggle a private one among public ones.
 */
public final class AddressGuard {
    /** Why a target was refused, in words for the API's error or the delivery's last error. */
    public static final class Refused extends Exception {
        public Refused(String message) {
            super(message, null, false, false);
        }
    }

    private final boolean allowPrivate;

    public AddressGuard(boolean allowPrivate) {
        this.allowPrivate = allowPrivate;
    }

    public boolean allowsPrivate() { return allowPrivate; }

    /** Resolves the URL's host now; returns the addresses it resolved to when every one may be reached. */
    public InetAddress[] check(URI url) throws Refused {
        String host = url.getHost();
        if (host == null) throw new Refused("the URL has no host");
        return resolve(host);
    }

    /**
     * Resolves a host name now; returns the addresses it resolved to when every one may be reached. A
     * delivery connects to exactly these ({@link PinnedResolver}): a second lookup could answer otherwise.
     */
    public InetAddress[] resolve(String host) throws Refused {
        InetAddress[] addresses;
        try {
            addresses = InetAddress.getAllByName(host);
        } catch (UnknownHostException e) {
            throw new Refused("the host " + host + " does not resolve");
        }
        if (allowPrivate) return addresses;
        for (InetAddress a : addresses) {
            String kind = forbidden(a);
            if (kind != null) {
                throw new Refused("the host " + host + " resolves to " + a.getHostAddress() + ", a " + kind
                        + " address; webhooks may only target public addresses (SLIPWAY_WEBHOOKS_ALLOW_PRIVATE=true lifts this)");
            }
        }
        return addresses;
    }

    /** The kind of a non-public address, or null when it is public. */
    public static String forbidden(InetAddress a) {
        if (a.isAnyLocalAddress()) return "unspecified";
        if (a.isLoopbackAddress()) return "loopback";
        if (a.isLinkLocalAddress()) return "link-local";
        if (a.isSiteLocalAddress()) return "private";
        if (a.isMulticastAddress()) return "multicast";
        byte[] b = a.getAddress();
        if (a instanceof Inet4Address) return forbiddenV4(b);
        if (a instanceof Inet6Address) {
            int first = b[0] & 0xff;
            if ((first & 0xfe) == 0xfc) return "unique-local";
            if (first == 0xfe && (b[1] & 0xc0) == 0xc0) return "site-local";
            byte[] v4 = embeddedV4(b);
            if (v4 != null) return forbiddenV4(v4);
            if (first == 0x20 && b[1] == 0x01 && b[2] == 0x0d && (b[3] & 0xff) == 0xb8) return "documentation";
        }
        return null;
    }

    private static String forbiddenV4(byte[] b) {
        int a0 = b[0] & 0xff, a1 = b[1] & 0xff;
        if (a0 == 0) return "unspecified";
        if (a0 == 127) return "loopback";
        if (a0 == 10 || (a0 == 172 && (a1 & 0xf0) == 16) || (a0 == 192 && a1 == 168)) return "private";
        if (a0 == 100 && (a1 & 0xc0) == 64) return "shared (CGNAT)";
        if (a0 == 169 && a1 == 254) return "link-local";
        if (a0 == 192 && a1 == 0 && (b[2] & 0xff) == 0) return "reserved";
        if (a0 == 198 && (a1 & 0xfe) == 18) return "benchmarking";
        if (a0 >= 224) return a0 < 240 ? "multicast" : "reserved";
        return null;
    }

    /** The IPv4 address inside an IPv4-mapped (::ffff:a.b.c.d), -compatible (::a.b.c.d) or NAT64 (64:ff9b::/96) one. */
    private static byte[] embeddedV4(byte[] b) {
        boolean zeros80 = true;
        for (int i = 0; i < 10; i++) zeros80 &= b[i] == 0;
        boolean mapped = zeros80 && (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff;
        boolean compatible = zeros80 && b[10] == 0 && b[11] == 0;
        boolean nat64 = b[0] == 0 && b[1] == 0x64 && (b[2] & 0xff) == 0xff && (b[3] & 0xff) == 0x9b;
        for (int i = 4; nat64 && i < 12; i++) nat64 = b[i] == 0;
        if (!mapped && !compatible && !nat64) return null;
        return new byte[]{b[12], b[13], b[14], b[15]};
    }
}
