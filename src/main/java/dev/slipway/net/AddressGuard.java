package dev.slipway.net;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;

/**
 * Refuses webhook targets inside the operator's network (SSRF): a URL whose host resolves to any
 * loopback, private (RFC 1918, CGNAT), link-local, unique-local, multicast, unspecified or reserved
 * address, in IPv4 or IPv6 (IPv4-mapped, -compatible and NAT64 forms included): the ranges of
 * {@link NonPublic}, which the sandbox's firewall refuses too. Every address the name resolves to must be
 * public, so a name cannot smuggle a private one among public ones.
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

    /** The kind of a non-public address ({@link NonPublic}), or null when it is public. */
    public static String forbidden(InetAddress a) {
        return NonPublic.kind(a);
    }
}
