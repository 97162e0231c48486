package dev.slipway.kubernetes;

import java.net.InetAddress;
import java.net.Inet6Address;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Where an app's database listens, read from its {@code DATABASE_URL} ({@code postgres://…},
 * {@code mysql://…}, or their {@code jdbc:} forms) and resolved now: a NetworkPolicy names addresses, not
 * host names, so a database that moves needs a new deployment (or a rule of the operator's).
 */
record DatabaseAddress(String cidr, int port) {

    static List<DatabaseAddress> of(String databaseUrl) {
        if (databaseUrl == null || databaseUrl.isBlank()) return List.of();
        String url = databaseUrl.strip();
        if (url.startsWith("jdbc:")) url = url.substring(5);
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException e) {
            return List.of();
        }
        String host = uri.getHost();
        if (host == null) return List.of();
        int port = uri.getPort() > 0 ? uri.getPort() : defaultPort(uri.getScheme());
        if (port <= 0) return List.of();
        List<DatabaseAddress> out = new ArrayList<>();
        try {
            for (InetAddress a : InetAddress.getAllByName(host)) {
                String ip = a.getHostAddress();
                int zone = ip.indexOf('%');
                if (zone >= 0) ip = ip.substring(0, zone);
                out.add(new DatabaseAddress(ip + (a instanceof Inet6Address ? "/128" : "/32"), port));
            }
        } catch (UnknownHostException e) {
            return List.of();
        }
        return out;
    }

    private static int defaultPort(String scheme) {
        if (scheme == null) return -1;
        return switch (scheme.toLowerCase(Locale.ROOT)) {
            case "postgres", "postgresql" -> 5432;
            case "mysql", "mariadb" -> 3306;
            default -> -1;
        };
    }
}
