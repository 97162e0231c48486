package dev.slipway.isolation;

import dev.slipway.net.Cidr;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The way into a cell that serves a port: a veth pair, its host end {@code slwv<slot>} with the first address of the
 * slot's /30 in the cells' network ({@code SLIPWAY_SANDBOX_CELL_NET}), its cell end {@code slw0} with the second.
 * The host's connections to the cell's loopback port (the router's, the edge's, the health checks') are sent down the
 * pair by the map {@code ports} (port → cell address) of the host's table {@code slipway_veths}, and the cell hands
 * them on to its loopback, where the app listens: a hop through the kernel, as a container's veth, where pasta's
 * splice cost a third of a proxied app's throughput.
 * <p>
 * A mapping lasts {@link #MAPPED_FOR} unless its server renews it ({@link #renew}, every {@link #RENEW_EVERY}): one
 * that nobody renews (its server died, or a version of the server without veth pairs runs the cell now) ends by
 * itself, and the cell is reached through its pasta again; no mapping outlives its pair for longer than that, where
 * it would send the port's connections nowhere (a port the kernel hands out again meanwhile).
 * <p>
 * pasta still forwards the port as well (it keeps the port reserved on the host, and serves it should the map lose
 * it) and carries all the cell's own traffic out. The pair carries none of that: the cell's firewall passes only
 * replies out of {@code slw0} and refuses the whole cells' network, its input takes only what was sent to its port,
 * and IPv6 is off on both ends. A slot is taken by making its host end's name, so servers sharing a machine never
 * share one; its record in the run dir ({@code <network>.veth}) lets a later run remove it.
 */
final class Veths {
    private static final Logger LOG = LoggerFactory.getLogger(Veths.class);
    static final String CELL_LINK = "slw0";
    static final String HOST_PREFIX = "slwv";
    private static final String TABLE = "ip slipway_veths";
    private static final String MAP = TABLE + " ports";
    private static final int TRIES = 64;
    static final java.time.Duration MAPPED_FOR = java.time.Duration.ofSeconds(30);
    static final java.time.Duration RENEW_EVERY = java.time.Duration.ofSeconds(10);

    private final SandboxTools tools;
    private final Cidr range;
    private final int slots;
    private final AtomicInteger next;

    /** @param range an IPv4 range of at least 16 addresses ({@link SandboxSettings} checks it) */
    Veths(SandboxTools tools, Cidr range) {
        this.tools = tools;
        this.range = range;
        this.slots = 1 << (30 - range.prefix());
        this.next = new AtomicInteger(ThreadLocalRandom.current().nextInt(slots));
    }

    /**
     * The host's table (shared by the servers of this machine, and kept when they stop: adopted cells need it): the
     * map and the two rules that send a mapped loopback port down its pair. Loaded in one transaction, so a server
     * starting beside running cells never leaves them unmapped.
     */
    void prepareHost() throws IOException {
        ToolRun.run(List.of(tools.nft().toString(), "-f", "-"), String.join("\n",
                "add table " + TABLE,
                "add map " + MAP + " { type inet_service : ipv4_addr ; flags timeout ; }",
                "add chain " + TABLE + " output { type nat hook output priority -100 ; }",
                "add chain " + TABLE + " postrouting { type nat hook postrouting priority 100 ; }",
                "flush chain " + TABLE + " output",
                "flush chain " + TABLE + " postrouting",
                "add rule " + TABLE + " output ip daddr 127.0.0.1 dnat to tcp dport map @ports",
                // the host end's address, not loopback's, is the source the cell sees
                "add rule " + TABLE + " postrouting oifname \"" + HOST_PREFIX + "*\" ip saddr 127.0.0.0/8 masquerade", ""));
    }

    /** The cells' network, which every cell's firewall refuses. */
    Cidr range() {
        return range;
    }

    /**
     * Joins the network {@code handle} to the host by a pair in a free slot, recorded in {@code record} as soon as it
     * exists; with {@code port} > 0 the cell takes that port's connections from the pair ({@link #map} sends them).
     */
    void attach(Path handle, int port, Path record) throws IOException {
        int slot = makePair(handle);
        Files.writeString(record, slot + " 0"); // no mapping yet: nothing to renew or to remove but the pair
        ToolRun.run(linkUp(List.of(), HOST_PREFIX + slot, address(slot, 1)), null);
        // the sysctls are read in the network of the process that writes them: the cell end's, in the cell's
        ToolRun.run(linkUp(List.of(tools.nsenter().toString(), "--net=" + handle), CELL_LINK, address(slot, 2)), null);
        ToolRun.run(List.of(tools.nsenter().toString(), "--net=" + handle, tools.nft().toString(), "-f", "-"), cellRules(port));
    }

    /**
     * Sends the host's connections to {@code port} down the recorded pair: called once its pasta holds the port, so
     * that no mapping ever names a port another process could take.
     */
    synchronized void map(Path record, int port) throws IOException {
        Mapping m = new Mapping(Mapping.read(record).slot(), port);
        Files.writeString(record, m.slot() + " " + port); // from here on renewed, and removed with the pair
        unmap(port, null); // what a cell that had the port before left (a mapping of a server that died)
        ToolRun.run(List.of(tools.nft().toString(), "-f", "-"), m.renewal(this));
    }

    /** Renews the mappings of the pairs recorded in {@code dir} (this server's cells), in one transaction. */
    synchronized void renew(Path dir) {
        StringBuilder batch = new StringBuilder();
        try (var files = Files.list(dir)) {
            for (Path f : files.filter(f -> f.getFileName().toString().endsWith(CellNetwork.VETH)).toList()) {
                try {
                    Mapping m = Mapping.read(f);
                    if (m.port() > 0) batch.append(m.renewal(this));
                } catch (IOException | RuntimeException gone) {
                    // removed meanwhile, or still being written
                }
            }
            if (!batch.isEmpty()) ToolRun.run(List.of(tools.nft().toString(), "-f", "-"), batch.toString());
        } catch (IOException e) {
            LOG.warn("could not renew the cells' port mappings (their pastas serve them meanwhile): {}", e.getMessage());
        }
    }

    /** A pair's record: its slot and the cell's port (0: none). */
    private record Mapping(int slot, int port) {
        static Mapping read(Path record) throws IOException {
            String[] parts = Files.readString(record).strip().split(" ");
            return new Mapping(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
        }

        /** Added when missing, then made again: its time starts anew, in one transaction. */
        String renewal(Veths veths) {
            String element = "{ " + port + " timeout " + MAPPED_FOR.toSeconds() + "s : " + veths.address(slot, 2) + " }";
            return "add element " + MAP + " " + element + "\ndelete element " + MAP + " { " + port + " }\n"
                    + "add element " + MAP + " " + element + "\n";
        }
    }

    /** Brings one end up with its address: IPv6 off, loopback's addresses routable to it (the cell's DNAT and SNAT). */
    private List<String> linkUp(List<String> prefix, String link, String address) {
        List<String> argv = new java.util.ArrayList<>(prefix);
        argv.addAll(List.of(tools.sh().toString(), "-c", "echo 1 > /proc/sys/net/ipv6/conf/$0/disable_ipv6 "
                + "&& echo 1 > /proc/sys/net/ipv4/conf/$0/route_localnet && \"$1\" addr add \"$2\"/30 dev \"$0\" "
                + "&& \"$1\" link set \"$0\" up", link, tools.ip().toString(), address));
        return argv;
    }

    /** The pair's slot: the first free one from a moving start, taken by making its host end's name. */
    private int makePair(Path handle) throws IOException {
        IOException last = null;
        for (int i = 0; i < TRIES; i++) {
            int slot = Math.floorMod(next.getAndIncrement(), slots);
            if (Files.exists(Path.of("/sys/class/net", HOST_PREFIX + slot))) continue;
            try {
                ToolRun.run(List.of(tools.nsenter().toString(), "--net=" + handle, tools.ip().toString(), "link", "add", CELL_LINK,
                        "type", "veth", "peer", "name", HOST_PREFIX + slot, "netns", Long.toString(ProcessHandle.current().pid())), null);
                return slot;
            } catch (IOException e) {
                if (!e.getMessage().contains("File exists")) throw e;
                last = e; // another server took the slot meanwhile
            }
        }
        throw new IOException("no free slot for a veth pair in " + range + " after " + TRIES + " tries", last);
    }

    /**
     * Into the cell, only its port: to its loopback, where the app listens, from loopback's address, as through pasta
     * (an app or its server trusts a proxy's forwarded headers from loopback by default: gunicorn, uvicorn).
     */
    private static String cellRules(int port) {
        String link = "iifname \"" + CELL_LINK + "\" ";
        StringBuilder r = new StringBuilder("table ip slipway_inbound {\n");
        if (port > 0) {
            r.append("  chain prerouting {\n    type nat hook prerouting priority -100; policy accept;\n")
                    .append("    ").append(link).append("tcp dport ").append(port).append(" dnat to 127.0.0.1\n  }\n")
                    .append("  chain output_nat {\n    type nat hook output priority -100; policy accept;\n  }\n")
                    .append("  chain input_nat {\n    type nat hook input priority 100; policy accept;\n")
                    .append("    ").append(link).append("ct status dnat snat to 127.0.0.1\n  }\n");
        }
        r.append("  chain input {\n    type filter hook input priority 0; policy accept;\n")
                .append("    ").append(link).append("ct status dnat accept\n")
                .append("    ").append(link).append("drop\n  }\n}\n");
        return r.toString();
    }

    /** Removes the pair recorded in {@code record} and its port's mapping (when the mapping is still the pair's). */
    synchronized void detach(Path record) {
        if (!Files.exists(record)) return;
        try {
            Mapping m = Mapping.read(record);
            int slot = m.slot();
            if (m.port() > 0) unmap(m.port(), address(slot, 2));
            if (Files.exists(Path.of("/sys/class/net", HOST_PREFIX + slot))) {
                try {
                    ToolRun.run(List.of(tools.ip().toString(), "link", "del", HOST_PREFIX + slot), null);
                } catch (IOException gone) {
                    // its network went first, and the pair with it
                }
            }
            Files.deleteIfExists(record);
        } catch (IOException | RuntimeException e) {
            LOG.warn("could not remove a cell's veth pair ({}): {}", record.getFileName(), e.toString());
        }
    }

    /** Removes the port's mapping; only when it points at {@code cell}, unless that is null. */
    private void unmap(int port, String cell) throws IOException {
        String element = "{ " + port + " }";
        String now;
        try {
            now = ToolRun.run(List.of(tools.nft().toString(), "get element " + MAP + " " + element), null);
        } catch (IOException notMapped) {
            return;
        }
        if (cell != null && !now.contains(": " + cell + " ")) return; // another cell has the port now
        try {
            ToolRun.run(List.of(tools.nft().toString(), "delete element " + MAP + " " + element), null);
        } catch (IOException raced) {
            // removed meanwhile
        }
    }

    /** The {@code n}th address of the slot's /30 (1: the host end, 2: the cell end). */
    String address(int slot, int n) {
        byte[] b = range.network().getAddress();
        int base = ((b[0] & 0xff) << 24) | ((b[1] & 0xff) << 16) | ((b[2] & 0xff) << 8) | (b[3] & 0xff);
        int a = base + slot * 4 + n;
        try {
            return InetAddress.getByAddress(new byte[]{(byte) (a >>> 24), (byte) (a >>> 16), (byte) (a >>> 8), (byte) a}).getHostAddress();
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
