package dev.slipway.domains;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How custom domains are proven (issue 18).
 *
 * @param proof         true ({@code dns}): a domain is served once a TXT record proves its control; false
 *                      ({@code off}, a single-team install): at once
 * @param dnsServers    the DNS servers asked for the TXT records; empty: the system's resolver
 * @param dnsTimeout    how long one check waits for an answer
 * @param checkInterval how often pending domains are checked again
 */
public record DomainSettings(boolean proof, List<InetSocketAddress> dnsServers, Duration dnsTimeout, Duration checkInterval) {
    public static final DomainSettings DEFAULTS = new DomainSettings(true, List.of(), Duration.ofSeconds(3), Duration.ofSeconds(60));

    public DomainSettings {
        dnsServers = List.copyOf(dnsServers);
        if (dnsTimeout.isNegative() || dnsTimeout.isZero() || dnsTimeout.compareTo(Duration.ofSeconds(30)) > 0) {
            throw new IllegalArgumentException("the DNS timeout must be from 1 ms to 30 s");
        }
        if (checkInterval.compareTo(Duration.ofMillis(100)) < 0) throw new IllegalArgumentException("the domain check interval must be at least 100 ms");
    }

    public DomainSettings withProof(boolean v) { return new DomainSettings(v, dnsServers, dnsTimeout, checkInterval); }
    public DomainSettings withDnsServers(List<InetSocketAddress> v) { return new DomainSettings(proof, v, dnsTimeout, checkInterval); }
    public DomainSettings withDnsTimeout(Duration v) { return new DomainSettings(proof, dnsServers, v, checkInterval); }
    public DomainSettings withCheckInterval(Duration v) { return new DomainSettings(proof, dnsServers, dnsTimeout, v); }

    /**
     * {@code SLIPWAY_DOMAIN_VERIFICATION} ({@code dns}|{@code off}), {@code SLIPWAY_DNS_SERVERS} (host:port, comma
     * separated), {@code SLIPWAY_DNS_TIMEOUT_SECONDS}, {@code SLIPWAY_DOMAIN_CHECK_SECONDS}; a bad value names its variable.
     */
    public static DomainSettings fromEnv(Map<String, String> env) {
        DomainSettings s = DEFAULTS;
        String mode = env.get("SLIPWAY_DOMAIN_VERIFICATION");
        if (mode != null && !mode.isBlank()) s = s.withProof(proof("SLIPWAY_DOMAIN_VERIFICATION", mode));
        String servers = env.get("SLIPWAY_DNS_SERVERS");
        if (servers != null && !servers.isBlank()) s = s.withDnsServers(servers("SLIPWAY_DNS_SERVERS", servers));
        String timeout = env.get("SLIPWAY_DNS_TIMEOUT_SECONDS");
        if (timeout != null && !timeout.isBlank()) s = s.withDnsTimeout(Duration.ofSeconds(seconds("SLIPWAY_DNS_TIMEOUT_SECONDS", timeout, 1, 30)));
        String every = env.get("SLIPWAY_DOMAIN_CHECK_SECONDS");
        if (every != null && !every.isBlank()) s = s.withCheckInterval(Duration.ofSeconds(seconds("SLIPWAY_DOMAIN_CHECK_SECONDS", every, 1, 86_400)));
        return s;
    }

    /** {@code dns} → true, {@code off} → false. */
    public static boolean proof(String name, String value) {
        return switch (value.strip().toLowerCase(Locale.ROOT)) {
            case "dns" -> true;
            case "off" -> false;
            default -> throw new IllegalArgumentException(name + " must be dns or off, got '" + value + "'");
        };
    }

    /** {@code 127.0.0.1:5353,[::1]:53,10.0.0.2} (port 53 when none is given). */
    public static List<InetSocketAddress> servers(String name, String value) {
        List<InetSocketAddress> out = new ArrayList<>();
        for (String part : value.split(",")) {
            String p = part.strip();
            if (p.isEmpty()) continue;
            String host = p;
            int port = 53;
            int colon = p.lastIndexOf(':');
            if (p.startsWith("[")) {
                int end = p.indexOf(']');
                if (end < 0) throw new IllegalArgumentException(name + ": bad address '" + p + "'");
                host = p.substring(1, end);
                if (end + 1 < p.length()) port = port(name, p.substring(end + 1).replaceFirst("^:", ""), p);
            } else if (colon >= 0 && p.indexOf(':') == colon) {
                host = p.substring(0, colon);
                port = port(name, p.substring(colon + 1), p);
            }
            if (host.isEmpty()) throw new IllegalArgumentException(name + ": bad address '" + p + "'");
            out.add(new InetSocketAddress(host, port));
        }
        if (out.isEmpty()) throw new IllegalArgumentException(name + " names no server");
        return out;
    }

    private static int port(String name, String v, String whole) {
        try {
            int port = Integer.parseInt(v);
            if (port < 1 || port > 65535) throw new NumberFormatException();
            return port;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + ": bad port in '" + whole + "'");
        }
    }

    private static long seconds(String name, String v, long min, long max) {
        try {
            long n = Long.parseLong(v.strip());
            if (n < min || n > max) throw new NumberFormatException();
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a whole number of seconds from " + min + " to " + max + ", got '" + v + "'");
        }
    }
}
