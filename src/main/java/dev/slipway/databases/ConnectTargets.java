package dev.slipway.databases;

import dev.slipway.net.AddressGuard;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Where a {@code connect} database may be: the same rule as webhooks ({@link AddressGuard}), public
 * addresses only, and never this server's own. The server opens that connection, so without this check
 * an account could probe the server's ports and its network (the log told a closed port from an open
 * one) and its cloud's metadata address. The operator's switch for webhooks lifts it for databases too;
 * a database admin server the operator configured, at its own address and port, is always allowed.
 */
final class ConnectTargets {
    static final String NOT_ALLOWED = "address not allowed";

    private ConnectTargets() {}

    /** Why the server will not connect to {@code target}, or empty when it may; a host that does not resolve is left to the connect to explain. */
    static Optional<String> refusal(DbAddress target, AdminServers admins, boolean allowPrivate) {
        List<InetAddress> resolved;
        try {
            resolved = Arrays.asList(InetAddress.getAllByName(target.host()));
        } catch (UnknownHostException e) {
            return Optional.empty();
        }
        if (admins.admin(target.kind()).filter(admin -> sameServer(admin, target, resolved)).isPresent()) return Optional.empty();
        if (allowPrivate) return Optional.empty();
        for (InetAddress a : resolved) {
            String kind = AddressGuard.forbidden(a);
            if (kind == null && ownAddress(a)) kind = "this server's own";
            if (kind != null) {
                return Optional.of(NOT_ALLOWED + ": the host " + target.host() + " resolves to " + a.getHostAddress() + ", a "
                        + kind + " address; a connected database must be at a public address of another machine, or on the "
                        + target.kind().label() + " server this installation provides (SLIPWAY_WEBHOOKS_ALLOW_PRIVATE=true lifts this)");
            }
        }
        return Optional.empty();
    }

    private static boolean sameServer(DbAddress admin, DbAddress target, List<InetAddress> targetAddresses) {
        if (admin.port() != target.port()) return false;
        try {
            return Arrays.stream(InetAddress.getAllByName(admin.host())).anyMatch(targetAddresses::contains);
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static boolean ownAddress(InetAddress a) {
        try {
            return NetworkInterface.getByInetAddress(a) != null;
        } catch (SocketException e) {
            return true; // cannot tell: refuse rather than let a probe through
        }
    }
}
