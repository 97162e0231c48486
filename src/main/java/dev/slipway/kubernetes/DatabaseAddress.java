package dev.slipway.kubernetes;

import dev.slipway.net.AddressGuard;
import dev.slipway.net.Cidr;
import dev.slipway.net.DatabaseEndpoint;
import dev.slipway.net.EgressAllow;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * An egress rule to an app's database: an address the platform's record of the database resolves to now, on its
 * port. A NetworkPolicy names addresses, not host names, so a database that moves needs a new deployment. The
 * app's own variables play no part: its account sets them.
 */
record DatabaseAddress(String cidr, int port) {

    /** The rules, and why each address that gets none was refused. */
    record Rules(List<DatabaseAddress> allowed, List<String> refused) {}

    /**
     * Resolves the database's host once. An address inside the cluster's ranges, or any that is not public (the
     * metadata address, link-local, private, loopback…), gets a rule only when the operator allows it: the
     * database is on a server the operator configured, or the address is in {@code SLIPWAY_EGRESS_ALLOW}.
     *
     * @param database null: no database, no rule
     */
    static Rules of(DatabaseEndpoint database, List<Cidr> clusterRanges, EgressAllow allow) {
        if (database == null) return new Rules(List.of(), List.of());
        InetAddress[] resolved;
        try {
            resolved = InetAddress.getAllByName(database.host());
        } catch (UnknownHostException e) {
            return new Rules(List.of(), List.of(database.host() + " does not resolve"));
        }
        List<DatabaseAddress> allowed = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        for (InetAddress a : resolved) {
            String kind = clusterRanges.stream().anyMatch(r -> r.contains(a)) ? "inside the cluster's ranges"
                    : AddressGuard.forbidden(a) == null ? null : "a " + AddressGuard.forbidden(a) + " address";
            String ip = a.getHostAddress();
            int zone = ip.indexOf('%');
            if (zone >= 0) ip = ip.substring(0, zone);
            if (kind == null || database.provided() || allow.allows(a)) {
                allowed.add(new DatabaseAddress(ip + (a instanceof Inet6Address ? "/128" : "/32"), database.port()));
            } else {
                refused.add(ip + " (" + kind + ")");
            }
        }
        return new Rules(List.copyOf(allowed), List.copyOf(refused));
    }
}
