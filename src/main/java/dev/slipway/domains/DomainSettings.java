package dev.slipway.domains;

import dev.slipway.core.Env;
import dev.slipway.core.Setting;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How custom domains are proven.
 *
 * @param proof         true ({@code dns}): a domain is served once a TXT record proves its control; false
 *                      ({@code off}, a single-team install): at once
 * @param dnsServers    the DNS servers asked for the TXT records; empty: the system's resolver
 * @param dnsTimeout    how long one check waits for an answer
 * @param checkInterval how often pending domains are checked again
 */
public record DomainSettings(boolean proof, List<InetSocketAddress> dnsServers, Duration dnsTimeout, Duration checkInterval) {
    public static final Setting VERIFICATION = Setting.flag("--domain-verification", "SLIPWAY_DOMAIN_VERIFICATION", "`dns`",
            "`dns`: a custom domain is served only once a TXT record at `_slipway-challenge.<domain>` holds its project's "
                    + "token; `off` (a single-team install): domains are `verified` as soon as they are set, pending ones "
                    + "included at the next start ([Custom domains](#custom-domains))");
    public static final Setting DNS_SERVERS = Setting.env("SLIPWAY_DNS_SERVERS", "the system's resolver (`/etc/resolv.conf`)",
            "DNS servers asked for the TXT records, `host[:port]` comma-separated, e.g. `127.0.0.1:5353`");
    public static final Setting DNS_TIMEOUT = Setting.env("SLIPWAY_DNS_TIMEOUT_SECONDS", "`3`",
            "a check that gets no answer within this fails with `DNS error: no answer …` (1–30)");
    public static final Setting CHECK_INTERVAL = Setting.env("SLIPWAY_DOMAIN_CHECK_SECONDS", "`60`",
            "how often the server checks each pending domain again on its own");
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

    /** The defaults, with what the environment sets; a bad value names its variable. */
    public static DomainSettings fromEnv(Env env) {
        DomainSettings d = DEFAULTS;
        return new DomainSettings(env.text(VERIFICATION).map(v -> proof(VERIFICATION.variable(), v)).orElse(d.proof),
                env.text(DNS_SERVERS).map(v -> servers(DNS_SERVERS.variable(), v)).orElse(d.dnsServers),
                Duration.ofSeconds(env.number(DNS_TIMEOUT, 1, 30, d.dnsTimeout.toSeconds())),
                Duration.ofSeconds(env.number(CHECK_INTERVAL, 1, 86_400, d.checkInterval.toSeconds())));
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
}
