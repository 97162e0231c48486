package dev.slipway.isolation;

import dev.slipway.net.Cidr;
import dev.slipway.net.EgressAllow;
import dev.slipway.net.NonPublic;
import dev.slipway.net.DatabaseEndpoint;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Where a confined cell may connect. Its network namespace has its own loopback, so the server's
 * loopback services (the API, the apps listener, the store, other apps' ports) are out of reach by
 * construction; outbound traffic leaves through pasta as the host's. On top of that the namespace gets
 * a firewall: every non-public address of both families
 * ({@link NonPublic}: private, shared, link-local, loopback, multicast and reserved ranges, so a LAN's routers
 * and admin pages and every cloud's metadata service) is refused, but for what the operator opened
 * ({@code SLIPWAY_EGRESS_ALLOW}), the configured database servers' ports and pasta's DNS forwarder
 * ({@link CellDns}). Every address of this host and the platform's own endpoints elsewhere are refused even
 * then. The ways back to the host's loopback are the port of a database server the operator configured,
 * forwarded by pasta for the project whose database the platform made or connected there, and, for build steps
 * alone, the port of the npm registry the operator configured there ({@code SLIPWAY_NPM_REGISTRY}).
 *
 * @param denied           host:port endpoints of the platform off this host (port 0: every port)
 * @param hostAddresses    this host's own non-loopback addresses
 * @param databasePorts    loopback ports of the configured database admin servers
 * @param databaseServers  the configured database admin servers that are not on this host's loopback
 * @param allowed          the non-public addresses and ranges the operator opened
 * @param dns              the host's resolvers, reached through pasta's forwarder
 * @param buildPorts       loopback ports every build step reaches (a configured npm registry's)
 */
public record NetworkPolicy(List<Endpoint> denied, List<InetAddress> hostAddresses, Set<Integer> databasePorts,
                            List<Endpoint> databaseServers, EgressAllow allowed, CellDns dns, List<Integer> buildPorts) {
    public record Endpoint(InetAddress address, int port) {}

    public NetworkPolicy {
        denied = List.copyOf(denied);
        hostAddresses = List.copyOf(hostAddresses);
        databasePorts = Set.copyOf(databasePorts);
        databaseServers = List.copyOf(databaseServers);
        allowed = allowed == null ? EgressAllow.NONE : allowed;
        dns = dns == null ? CellDns.host() : dns;
        buildPorts = List.copyOf(buildPorts);
    }

    public NetworkPolicy(List<Endpoint> denied, List<InetAddress> hostAddresses, Set<Integer> databasePorts,
                         List<Endpoint> databaseServers, EgressAllow allowed, CellDns dns) {
        this(denied, hostAddresses, databasePorts, databaseServers, allowed, dns, List.of());
    }

    /** Nothing opened, no database server off loopback, the host's resolvers. */
    public NetworkPolicy(List<Endpoint> denied, List<InetAddress> hostAddresses, Set<Integer> databasePorts) {
        this(denied, hostAddresses, databasePorts, List.of(), EgressAllow.NONE, null);
    }

    /**
     * @param platformUrls the store's and listeners' addresses (JDBC or URL form; nulls skipped)
     * @param adminUrls    the database admin servers' addresses
     * @param buildUrls    what build steps fetch from (the npm registry): one on this host's loopback is forwarded
     * @param allowed      what the operator opened ({@code SLIPWAY_EGRESS_ALLOW})
     */
    public static NetworkPolicy of(List<String> platformUrls, List<String> adminUrls, List<String> buildUrls,
                                   EgressAllow allowed) {
        List<Endpoint> denied = new ArrayList<>();
        List<Endpoint> databaseServers = new ArrayList<>();
        Set<Integer> dbPorts = new LinkedHashSet<>();
        for (String url : adminUrls) {
            hostPort(url).ifPresent(hp -> {
                if (isLoopback(hp.host())) dbPorts.add(hp.port());
                else for (InetAddress a : resolve(hp.host())) databaseServers.add(new Endpoint(a, hp.port()));
            });
        }
        Set<Integer> platformPorts = new LinkedHashSet<>();
        for (String url : platformUrls) {
            hostPort(url).ifPresent(hp -> {
                if (isLoopback(hp.host())) {
                    platformPorts.add(hp.port());
                    return;
                }
                for (InetAddress a : resolve(hp.host())) denied.add(new Endpoint(a, hp.port()));
            });
        }
        Set<Integer> buildPorts = new LinkedHashSet<>();
        for (String url : buildUrls) {
            hostPort(url).filter(hp -> isLoopback(hp.host())).ifPresent(hp -> buildPorts.add(hp.port()));
        }
        for (int port : buildPorts) {
            if (platformPorts.contains(port)) {
                throw new IllegalArgumentException("the npm registry " + buildUrls + " is on a port of the platform's own (" + port
                        + "): build steps would reach it; point SLIPWAY_NPM_REGISTRY at the registry");
            }
        }
        return new NetworkPolicy(denied, ownAddresses(), dbPorts, databaseServers, allowed, CellDns.host(),
                List.copyOf(buildPorts));
    }

    /**
     * The loopback ports the cell needs forwarded: for a build step, the configured registry's; and its database's, when the platform's record of its project's database is on a configured
     * admin server of this host. The cell's variables (a DATABASE_URL its account set) open nothing.
     */
    List<Integer> loopbackForwards(Cell cell) {
        List<Integer> out = new ArrayList<>(cell.buildStep() ? buildPorts : List.of());
        DatabaseEndpoint db = cell.database();
        if (db != null && isLoopback(db.host()) && databasePorts.contains(db.port()) && !out.contains(db.port())) {
            out.add(db.port());
        }
        return out;
    }

    /**
     * The nftables ruleset loaded into each cell's network namespace, first match wins: the cell's own loopback;
     * the platform's endpoints and this host's addresses refused; pasta's DNS forwarder, the database servers'
     * ports and what the operator opened accepted; IPv6's neighbour discovery (with the gateway, which may be on
     * a unique-local address) passed; every other non-public address refused. Out of its veth pair ({@link Veths})
     * only replies pass, and the cells' network ({@code cells}) is refused even where the operator opened it.
     */
    String nftRules(Cidr cells) {
        StringBuilder r = new StringBuilder();
        r.append("table inet slipway {\n  chain output {\n    type filter hook output priority 0; policy accept;\n");
        r.append("    oifname \"lo\" accept\n");
        r.append("    oifname \"").append(Veths.CELL_LINK).append("\" ct state established accept\n");
        r.append("    oifname \"").append(Veths.CELL_LINK).append("\" reject\n");
        for (Endpoint e : denied) rule(r, e, "reject");
        for (InetAddress a : hostAddresses) rule(r, new Endpoint(a, 0), "reject");
        r.append("    ").append(cells.family()).append(" daddr ").append(cells).append(" reject\n");
        for (InetAddress f : dns.forwarders()) {
            r.append("    ").append(family(f)).append(" daddr ").append(f.getHostAddress()).append(" udp dport 53 accept\n");
        }
        for (Endpoint e : databaseServers) rule(r, e, "accept");
        for (Cidr c : allowed.ranges()) r.append("    ").append(c.family()).append(" daddr ").append(c).append(" accept\n");
        r.append("    icmpv6 type { nd-router-solicit, nd-neighbor-solicit, nd-neighbor-advert, mld-listener-report, mld2-listener-report } accept\n");
        for (String family : List.of("ip", "ip6")) {
            r.append("    ").append(family).append(" daddr { ")
                    .append(String.join(", ", NonPublic.outermost(family).stream().map(Cidr::toString).toList())).append(" } reject\n");
        }
        r.append("  }\n}\n");
        return r.toString();
    }

    /** {@code ip daddr A [tcp dport P] verdict} */
    private static void rule(StringBuilder r, Endpoint e, String verdict) {
        r.append("    ").append(family(e.address())).append(" daddr ").append(e.address().getHostAddress());
        if (e.port() > 0) r.append(" tcp dport ").append(e.port());
        r.append(' ').append(verdict).append('\n');
    }

    private static String family(InetAddress a) {
        return a instanceof Inet6Address ? "ip6" : "ip";
    }

    record HostPort(String host, int port) {}

    /** Host and port of a JDBC URL, a {@code scheme://} URL, or {@code host:port}. */
    static Optional<HostPort> hostPort(String url) {
        if (url == null || url.isBlank()) return Optional.empty();
        String u = url.strip();
        if (u.startsWith("jdbc:")) u = u.substring(5);
        try {
            URI uri = URI.create(u);
            String host = uri.getHost();
            if (host == null) return Optional.empty();
            int port = uri.getPort();
            if (port < 0) {
                String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
                port = switch (scheme) {
                    case "postgres", "postgresql" -> 5432;
                    case "mysql", "mariadb" -> 3306;
                    case "https" -> 443;
                    case "http" -> 80;
                    default -> 0;
                };
            }
            if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
            return Optional.of(new HostPort(host, port));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    static boolean isLoopback(String host) {
        if (host.equalsIgnoreCase("localhost")) return true;
        return host.startsWith("127.") || host.equals("::1") || host.equals("0:0:0:0:0:0:0:1");
    }

    private static List<InetAddress> resolve(String host) {
        try {
            return List.of(InetAddress.getAllByName(host));
        } catch (UnknownHostException e) {
            return List.of();
        }
    }

    private static List<InetAddress> ownAddresses() {
        List<InetAddress> out = new ArrayList<>();
        try {
            for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                for (InetAddress a : Collections.list(nic.getInetAddresses())) {
                    if (a.isLoopbackAddress() || a.isLinkLocalAddress()) continue;
                    if (a instanceof Inet4Address || a instanceof Inet6Address) out.add(withoutScope(a));
                }
            }
        } catch (SocketException e) {
            // no interfaces to list: nothing more to refuse
        }
        return out;
    }

    private static InetAddress withoutScope(InetAddress a) {
        try {
            return InetAddress.getByAddress(a.getAddress());
        } catch (UnknownHostException e) {
            return a;
        }
    }
}
