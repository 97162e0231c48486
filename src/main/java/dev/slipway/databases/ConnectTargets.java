package dev.slipway.databases;

import dev.slipway.net.AddressGuard;
import dev.slipway.net.EgressAllow;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;

/**
 * Where a {@code connect} database may be: public addresses only (the rule of webhooks, {@link AddressGuard}), and
 * never this server's own. The server opens that connection, and the account's app then reaches the same address,
 * so without this check an account could probe the server's ports and its network (the log told a closed port from
 * an open one) and its cloud's metadata address. What the operator allows is allowed: a database admin server the
 * operator configured, at its own address and port, and the addresses of {@code SLIPWAY_EGRESS_ALLOW}.
 */
final class ConnectTargets {
    static final String NOT_ALLOWED = "address not allowed";

    private ConnectTargets() {}

    /**
     * One lookup of a target's host: the addresses the server may connect to ({@link Connections#open(DbAddress, List)}
     * connects to exactly these), or why it may not. A host that does not resolve has neither.
     */
    record Checked(List<InetAddress> addresses, String refusal) {
        boolean resolved() {
            return !addresses.isEmpty();
        }
    }

    static Checked check(DbAddress target, AdminServers admins, EgressAllow allowed) {
        List<InetAddress> resolved;
        try {
            resolved = Arrays.asList(InetAddress.getAllByName(target.host()));
        } catch (UnknownHostException e) {
            return new Checked(List.of(), null);
        }
        if (admins.admin(target.kind()).filter(admin -> sameServer(admin, target, resolved)).isPresent()) {
            return new Checked(resolved, null);
        }
        for (InetAddress a : resolved) {
            String kind = AddressGuard.forbidden(a);
            if (kind == null && ownAddress(a)) kind = "this server's own";
            if (kind != null && !allowed.allows(a)) {
                return new Checked(List.of(), NOT_ALLOWED + ": the host " + target.host() + " resolves to " + a.getHostAddress()
                        + ", a " + kind + " address; a connected database must be at a public address of another machine, on the "
                        + target.kind().label() + " server this installation provides, or at an address the operator lists in "
                        + EgressAllow.VARIABLE);
            }
        }
        return new Checked(resolved, null);
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
