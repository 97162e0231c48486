package dev.slipway.isolation;

import dev.slipway.net.DatabaseEndpoint;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.URI;
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
 * a firewall that refuses link-local addresses (cloud metadata at 169.254.169.254), every address of this
 * host, and the platform's own endpoints elsewhere. The one way back to the host's loopback is the port of
 * a database server the operator configured, for the project whose database the platform made or connected there.
 *
 * @param denied           host:port endpoints of the platform off this host (port 0: every port)
 * @param hostAddresses    this host's own non-loopback addresses
 * @param databasePorts    loopback ports of the configured database admin servers
 */
public record NetworkPolicy(List<Endpoint> denied, List<InetAddress> hostAddresses, Set<Integer> databasePorts) {
    public record Endpoint(InetAddress address, int port) {}

    public NetworkPolicy {
        denied = List.copyOf(denied);
        hostAddresses = List.copyOf(hostAddresses);
        databasePorts = Set.copyOf(databasePorts);
    }

    /**
     * @param platformUrls the store's and listeners' addresses (JDBC or URL form; nulls skipped)
     * @param adminUrls    the database admin servers' addresses
     */
    public static NetworkPolicy of(List<String> platformUrls, List<String> adminUrls) {
        List<Endpoint> denied = new ArrayList<>();
        Set<Integer> dbPorts = new LinkedHashSet<>();
        for (String url : adminUrls) {
            hostPort(url).ifPresent(hp -> {
                if (isLoopback(hp.host())) dbPorts.add(hp.port());
            });
        }
        for (String url : platformUrls) {
            hostPort(url).ifPresent(hp -> {
                if (isLoopback(hp.host())) return;
                for (InetAddress a : resolve(hp.host())) denied.add(new Endpoint(a, hp.port()));
            });
        }
        return new NetworkPolicy(denied, ownAddresses(), dbPorts);
    }

    /**
     * The loopback port the cell's database needs forwarded: the platform's record of its project's database, when
     * that is on a configured admin server of this host. The cell's variables (a DATABASE_URL its account set)
     * open nothing.
     */
    List<Integer> loopbackForwards(Cell cell) {
        DatabaseEndpoint db = cell.database();
        if (db == null || !isLoopback(db.host()) || !databasePorts.contains(db.port())) return List.of();
        return List.of(db.port());
    }

    /** The nftables ruleset loaded into each cell's network namespace. */
    String nftRules() {
        StringBuilder r = new StringBuilder();
        r.append("table inet slipway {\n  chain output {\n    type filter hook output priority 0; policy accept;\n");
        r.append("    oifname \"lo\" accept\n");
        r.append("    ip daddr 169.254.0.0/16 reject\n");
        r.append("    ip6 daddr fe80::/10 meta l4proto { tcp, udp } reject\n");
        r.append("    ip daddr 0.0.0.0/8 reject\n");
        for (InetAddress a : hostAddresses) r.append("    ").append(family(a)).append(" daddr ").append(a.getHostAddress()).append(" reject\n");
        for (Endpoint e : denied) {
            r.append("    ").append(family(e.address())).append(" daddr ").append(e.address().getHostAddress());
            if (e.port() > 0) r.append(" tcp dport ").append(e.port());
            r.append(" reject\n");
        }
        r.append("  }\n}\n");
        return r.toString();
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
        } catch (java.net.UnknownHostException e) {
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
        } catch (java.net.UnknownHostException e) {
            return a;
        }
    }
}
