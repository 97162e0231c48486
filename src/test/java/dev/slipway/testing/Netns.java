package dev.slipway.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A network namespace a test makes for itself, standing for a private network next to the host (a LAN, a
 * cloud's metadata service): a veth pair from the host into it, addresses on both ends, and a TCP listener inside.
 * Tests send traffic only to loopback and to such namespaces. {@link #close()} removes the namespace, the pair
 * and the listener. Needs root and iproute2.
 */
public final class Netns implements AutoCloseable {
    private final String name;
    private final String hostSide;
    private final List<Process> running = new ArrayList<>();
    /** A random third byte, so that runs at the same time on one machine use different subnets. */
    public final int subnet = ThreadLocalRandom.current().nextInt(1, 250);

    private Netns(String name, String hostSide) {
        this.name = name;
        this.hostSide = hostSide;
    }

    public static Netns create() {
        String id = UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        Netns ns = new Netns("slipway-t-" + id, "slw" + id);
        try {
            ip("netns", "add", ns.name);
            ip("link", "add", ns.hostSide, "type", "veth", "peer", "name", "lan0", "netns", ns.name);
            ip("link", "set", ns.hostSide, "up");
            ns.inside("ip", "link", "set", "lan0", "up");
            ns.inside("ip", "link", "set", "lo", "up");
        } catch (RuntimeException e) {
            ns.close();
            throw e;
        }
        return ns;
    }

    /**
     * Gives the host's end {@code host} and the namespace's end {@code inside} (CIDR, same subnet), without
     * IPv6's duplicate address detection, so that both are usable at once.
     */
    public Netns addresses(String host, String inside) {
        boolean v6 = host.contains(":");
        List<String> extra = v6 ? List.of("nodad") : List.of();
        List<String> a = new ArrayList<>(List.of("ip", "addr", "add", host, "dev", hostSide));
        a.addAll(extra);
        run(a);
        List<String> b = new ArrayList<>(List.of("ip", "netns", "exec", name, "ip", "addr", "add", inside, "dev", "lan0"));
        b.addAll(extra);
        run(b);
        return this;
    }

    /** An address of the namespace's end with no host end in its subnet (reached through the host's end's route). */
    public Netns insideOnly(String inside) {
        List<String> b = new ArrayList<>(List.of("ip", "netns", "exec", name, "ip", "addr", "add", inside, "dev", "lan0"));
        if (inside.contains(":")) b.add("nodad");
        run(b);
        return this;
    }

    /**
     * Starts a TCP listener on every address of the namespace (both families) at {@code port}, that answers
     * each connection with {@code reply}, and waits until {@code probe} (one of its addresses) accepts.
     */
    public Netns listen(int port, String reply, InetAddress probe) {
        String server = """
                import socket, sys
                s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
                s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                s.bind(("::", int(sys.argv[1])))
                s.listen(16)
                while True:
                    c, _ = s.accept()
                    c.sendall(sys.argv[2].encode())
                    c.close()
                """;
        try {
            Process p = new ProcessBuilder("ip", "netns", "exec", name, "/usr/bin/python3", "-c", server,
                    Integer.toString(port), reply).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            running.add(p);
        } catch (IOException e) {
            throw new IllegalStateException("cannot start a listener in " + name, e);
        }
        Await.until(Duration.ofSeconds(20), "the listener in " + name + " on " + probe.getHostAddress() + ":" + port, () -> {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(probe, port), 1000);
                return true;
            } catch (IOException e) {
                return false;
            }
        });
        return this;
    }

    public void inside(String... argv) {
        List<String> a = new ArrayList<>(List.of("ip", "netns", "exec", name));
        a.addAll(List.of(argv));
        run(a);
    }

    @Override
    public void close() {
        for (Process p : running) {
            p.destroyForcibly();
            try {
                p.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        // the namespace takes its end of the pair, and the host's end, with it
        try {
            ip("netns", "del", name);
        } catch (RuntimeException gone) {
            // never made
        }
        try {
            ip("link", "del", hostSide);
        } catch (RuntimeException gone) {
            // went with the namespace
        }
    }

    private static void ip(String... args) {
        List<String> a = new ArrayList<>(List.of("ip"));
        a.addAll(List.of(args));
        run(a);
    }

    private static void run(List<String> argv) {
        try {
            Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", argv) + " failed: " + out);
            }
        } catch (IOException e) {
            throw new IllegalStateException(String.join(" ", argv) + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
