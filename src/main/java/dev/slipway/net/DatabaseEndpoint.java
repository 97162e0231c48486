package dev.slipway.net;

import java.util.Objects;

/**
 * Where a project's database is, as the platform recorded it when it made the database or checked the one an
 * account connected. The network rules that let an app reach its database (a NetworkPolicy's egress rule on
 * Kubernetes, the sandbox's forward to a database server on this host's loopback) are built from this alone,
 * never from the app's variables, which its account sets.
 *
 * @param host     a name or an address literal (an IPv6 one without brackets)
 * @param provided the database is on a server the operator configured ({@code SLIPWAY_POSTGRES_ADMIN_URL},
 *                 {@code SLIPWAY_MYSQL_ADMIN_URL}), at that server's own host and port
 */
public record DatabaseEndpoint(String host, int port, boolean provided) {
    public DatabaseEndpoint {
        Objects.requireNonNull(host, "host");
        if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
        if (host.isBlank()) throw new IllegalArgumentException("a database endpoint needs a host");
        if (port < 1 || port > 65535) throw new IllegalArgumentException("a database port is from 1 to 65535, got " + port);
    }

    @Override
    public String toString() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
