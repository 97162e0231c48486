package dev.slipway.isolation;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * How a cell resolves names. The host's resolver is often on an address the cell's firewall closes (a LAN's,
 * 10.x, or systemd-resolved's 127.0.0.53, which is the host's loopback, not the cell's), so a cell never talks
 * to it: its {@code /etc/resolv.conf} names a forwarder address of pasta's ({@code --dns-forward}), whose UDP
 * port 53 alone the firewall opens, and pasta sends those queries on to the host's resolver, the first of each
 * family in the resolv.conf pasta reads. The host's {@code search} and {@code options} lines are kept.
 *
 * @param upstream the host's resolvers (no {@code nameserver} line: the local one, as for glibc)
 * @param options  the resolv.conf lines other than {@code nameserver}
 */
public record CellDns(List<InetAddress> upstream, List<String> options) {
    /** In 169.254.0.0/24, which RFC 3927 keeps out of link-local use: nothing of a real network is there. */
    static final InetAddress FORWARDER_V4 = literal("169.254.0.53");
    /** In 100::/64, the discard-only prefix (RFC 6666). */
    static final InetAddress FORWARDER_V6 = literal("100::53");
    private static final Path HOST = Path.of("/etc/resolv.conf");

    public CellDns {
        upstream = List.copyOf(upstream);
        options = List.copyOf(options);
    }

    /** The host's resolv.conf as it is now (none: the local resolver, as for glibc). */
    public static CellDns host() {
        try {
            return parse(Files.readString(HOST));
        } catch (NoSuchFileException e) {
            return parse("");
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + HOST + ": " + e.getMessage(), e);
        }
    }

    /** The given resolvers, with no options. */
    public static CellDns of(List<InetAddress> upstream) {
        return new CellDns(upstream, List.of());
    }

    static CellDns parse(String resolvConf) {
        List<InetAddress> servers = new ArrayList<>();
        List<String> options = new ArrayList<>();
        for (String line : resolvConf.lines().map(String::strip).toList()) {
            if (line.isEmpty() || line.startsWith("#") || line.startsWith(";")) continue;
            String[] words = line.split("\\s+");
            if (words[0].equals("nameserver")) {
                if (words.length > 1) numeric(words[1].replaceFirst("%.*$", "")).ifPresent(servers::add);
            } else if (words[0].equals("search") || words[0].equals("domain") || words[0].equals("options")) {
                options.add(line);
            }
        }
        if (servers.isEmpty()) servers.add(InetAddress.getLoopbackAddress());
        return new CellDns(servers, options);
    }

    /** The host's first resolver of a family, where pasta sends the queries of that family's forwarder. */
    Optional<InetAddress> first(Class<? extends InetAddress> family) {
        return upstream.stream().filter(family::isInstance).findFirst();
    }

    /** The resolv.conf pasta reads: the resolvers it forwards to. */
    String upstreamConf() {
        StringBuilder out = new StringBuilder();
        first(Inet4Address.class).ifPresent(a -> out.append("nameserver ").append(a.getHostAddress()).append('\n'));
        first(Inet6Address.class).ifPresent(a -> out.append("nameserver ").append(a.getHostAddress()).append('\n'));
        return out.toString();
    }

    /** The cell's own resolv.conf: pasta's forwarders for the families the host has a resolver of. */
    String cellConf() {
        StringBuilder out = new StringBuilder("# pasta forwards these to the host's resolver\n");
        for (InetAddress f : forwarders()) out.append("nameserver ").append(f.getHostAddress()).append('\n');
        for (String o : options) out.append(o).append('\n');
        return out.toString();
    }

    /** The forwarder addresses in use. */
    List<InetAddress> forwarders() {
        List<InetAddress> out = new ArrayList<>();
        if (first(Inet4Address.class).isPresent()) out.add(FORWARDER_V4);
        if (first(Inet6Address.class).isPresent()) out.add(FORWARDER_V6);
        return out;
    }

    private static Optional<InetAddress> numeric(String s) {
        if (!s.matches("[0-9.]+|[0-9a-fA-F:.]+")) return Optional.empty();
        try {
            return Optional.of(InetAddress.getByName(s));
        } catch (UnknownHostException e) {
            return Optional.empty();
        }
    }

    private static InetAddress literal(String s) {
        try {
            return InetAddress.getByName(s);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
