package dev.slipway.databases;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Where a {@code connect} database may be: anywhere but this server itself and its link. The server opens
 * that connection, so without this check an account could probe the server's own ports (the log told a
 * closed port from an open one) and its cloud's metadata address. A database admin server the operator
 * configured, at its own address and port, is the one exception: connecting to a database made by hand on it
 * is normal.
 */
final class ConnectTargets {
    private ConnectTargets() {}

    /** Why the server will not connect to {@code target}, or empty when it may; a host that does not resolve is left to the connect to explain. */
    static Optional<String> refusal(DbAddress target, AdminServers admins) {
        List<InetAddress> resolved;
        try {
            resolved = Arrays.asList(InetAddress.getAllByName(target.host()));
        } catch (UnknownHostException e) {
            return Optional.empty();
        }
        if (admins.admin(target.kind()).filter(admin -> sameServer(admin, target, resolved)).isPresent()) return Optional.empty();
        for (InetAddress a : resolved) {
            if (a.isLoopbackAddress() || a.isAnyLocalAddress() || a.isLinkLocalAddress() || a.isMulticastAddress() || ownAddress(a)) {
                return Optional.of("the host " + target.host() + " is this server or its link (" + a.getHostAddress()
                        + "): a connected database must be on another machine, or on the "
                        + target.kind().label() + " server this installation provides");
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
