package dev.slipway.isolation;

import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Makes and removes cells' network namespaces: a new namespace held by a bind mount (inside a user namespace of
 * its pasta's uid, {@link #ownedNamespace}), the cell firewall loaded into it ({@link NetworkPolicy#nftRules}), then
 * pasta connecting it — in that order, so no packet leaves it before its rules are in. Its cell joins it with
 * nsenter before bubblewrap starts. pasta forwards the cell's DNS queries to the resolvers of {@link CellDns}: it
 * reads them from {@code /etc/resolv.conf}, which it is shown in a mount namespace of its own.
 * <p>
 * pasta opens {@code /dev/net/tun} after it has become its network's uid. Where that device is not open to every
 * user (mode 0600 on some container hosts; Debian's is 0666), each pasta starts in a mount namespace of its own in
 * which {@code /dev/net} is a small tmpfs holding a tun device node of that namespace alone: it opens the same
 * kernel device, and no other process can reach the node. Only where that node cannot be made either (no
 * {@code CAP_MKNOD}) do pastas run as root, and the server says so.
 */
final class Networks {
    private static final Logger LOG = LoggerFactory.getLogger(Networks.class);

    /**
     * The uids pastas run as: one per network, in a range of their own below the projects' ({@link Identities#FIRST_UID}),
     * so that no pasta is root or a tenant, and no two networks of a server share one until the range wraps.
     */
    static final int FIRST_PASTA_UID = 1_000_000_000;
    static final int PASTA_UIDS = 100_000_000;
    private static final String UPSTREAM = "pasta-resolv.conf";
    private static final Path RESOLV_CONF = Path.of("/etc/resolv.conf");

    private final SandboxTools tools;
    private final Path runDir;
    private final String rules;
    private final AtomicInteger nextPastaUid = new AtomicInteger(ThreadLocalRandom.current().nextInt(PASTA_UIDS));
    /** Why pastas run as root here (this machine cannot give them a user namespace), or null while they do not. */
    private volatile String rootPastas;
    private final CellDns dns;
    /** The resolv.conf each pasta reads (in the run dir, so that a sweep takes it). */
    private final Path upstream;
    /** True when an unprivileged pasta cannot open the tun device itself: it gets a device node of its own. */
    private final boolean ownTunNode;
    /** The veth pairs into cells that serve a port (those of an earlier run are removed with it); null without {@code ip}. */
    private final Veths veths;
    /** Why the way in is pasta's here, or null while cells get veth pairs. */
    private volatile String pastaInbound;
    private Thread renewer;

    Networks(SandboxTools tools, NetworkPolicy policy, Path runDir) throws IOException {
        this.tools = tools;
        this.runDir = runDir;
        this.rules = policy.nftRules(tools.cellNetwork());
        this.dns = policy.dns();
        this.upstream = runDir.resolve(UPSTREAM);
        writeUpstream();
        this.ownTunNode = !tools.tunDevice().equals(SandboxSettings.TUN) || !openToEveryone(tools.tunDevice());
        this.veths = tools.ip() == null ? null : new Veths(tools, tools.cellNetwork());
        if (veths == null) {
            pastaInbound = "no `ip` (apt-get install iproute2)";
        } else {
            try {
                veths.prepareHost();
                renewer = Thread.ofVirtual().name("cell-port-mappings").start(this::renewMappings);
            } catch (IOException e) {
                pastaInbound = "the host's table for veth pairs could not be loaded (" + e.getMessage() + ")";
            }
        }
    }

    private void writeUpstream() throws IOException {
        Files.createDirectories(runDir);
        Files.writeString(upstream, dns.upstreamConf());
        Files.setPosixFilePermissions(upstream, PosixFilePermissions.fromString("rw-r--r--"));
    }

    private static boolean openToEveryone(Path device) {
        try {
            var perms = Files.getPosixFilePermissions(device);
            return perms.contains(PosixFilePermission.OTHERS_READ) && perms.contains(PosixFilePermission.OTHERS_WRITE);
        } catch (IOException e) {
            return false;
        }
    }

    /** The way into a cell here, for the server's start-up line. */
    String inbound() {
        return pastaInbound == null ? "a veth pair per serving cell in " + tools.cellNetwork()
                : "through pastas, as veth pairs cannot be made here: " + pastaInbound;
    }

    /** How pastas reach the tun device here, for the server's start-up line. */
    String tunAccess() {
        if (rootPastas != null) return "pastas run as root: " + rootPastas;
        if (!ownTunNode) return "pastas run as uids of their own";
        return "pastas run as uids of their own, each with a tun device node of its own (" + tools.tunDevice()
                + (tools.tunDevice().equals(SandboxSettings.TUN) ? " is not open to other users)" : ")");
    }

    /**
     * The start check's network, made as any other; where the tun device cannot be given to an unprivileged pasta
     * (the node of its own could not be made), pastas run as root from here on and this one is made again.
     */
    CellNetwork makeChecked(String name) throws IOException {
        remove(named(name, 0, List.of())); // what a check of an earlier run left
        CellNetwork network;
        try {
            network = make(name, 0, List.of());
        } catch (SandboxProblem.Failure e) {
            if (rootPastas != null || !e.problem().part().equals(SandboxProblem.TUN_PART)) throw e;
            rootPastas = "an unprivileged pasta cannot have the tun device " + tools.tunDevice() + " (" + e.problem().detail() + ")";
            network = make(name, 0, List.of());
            LOG.warn("cell networks' pastas run as root on this machine: {}", rootPastas);
        }
        if (pairs()) {
            try {
                veths.attach(network.handle(), 0, network.veth());
            } catch (IOException e) {
                pastaInbound = "a veth pair could not be made (" + e.getMessage() + ")";
                veths.detach(network.veth());
                LOG.warn("the way into cells is their pastas' on this machine: {}", pastaInbound);
            }
        }
        return network;
    }

    private CellNetwork named(String name, int port, List<Integer> forwards) {
        return new CellNetwork(runDir.resolve(name + ".net"), runDir.resolve(name + ".user"), runDir.resolve(name + ".pasta"),
                port, forwards, System.nanoTime());
    }

    /**
     * @param name     unique among this server's networks: names its handles and pid file in the run dir
     * @param port     the host loopback port forwarded to the same port inside (0: nothing comes in)
     * @param forwards host loopback ports the namespace's own loopback reaches (a configured database server)
     */
    CellNetwork make(String name, int port, List<Integer> forwards) throws IOException {
        return make(name, port, forwards, false);
    }

    /**
     * As above; {@code ahead}: made before any cell waits for it, at the lowest CPU priority, so that it never
     * slows the cell that is starting meanwhile (pasta's start is 50–100 ms of kernel time on 2 cores); its
     * pasta gets the normal priority back once it runs, as it then carries the app's traffic.
     */
    CellNetwork make(String name, int port, List<Integer> forwards, boolean ahead) throws IOException {
        List<String> nice = ahead ? List.of(tools.nice().toString(), "-n", "19") : List.of();
        CellNetwork network = named(name, port, forwards);
        Path handle = network.handle();
        Path pastaPid = network.pastaPid();
        Files.deleteIfExists(handle);
        Files.deleteIfExists(pastaPid);
        Files.createFile(handle);
        try {
            int uid = rootPastas == null ? ownedNamespace(nice, network) : 0;
            if (uid == 0) {
                step(() -> ToolRun.run(concat(nice, tools.unshare().toString(), "--net=" + handle, tools.truth().toString()), null),
                        SandboxProblem::network);
            }
            step(() -> ToolRun.run(concat(nice, tools.nsenter().toString(), "--net=" + handle, tools.nft().toString(), "-f", "-"), rules),
                    SandboxProblem::firewall);
            boolean paired = pairs() && port > 0;
            if (paired) step(() -> veths.attach(handle, port, network.veth()), SandboxProblem::network);
            List<String> pasta = new ArrayList<>(nice);
            if (!tools.tunDevice().equals(SandboxSettings.TUN) || (uid != 0 && ownTunNode)) pasta.addAll(withOwnTunNode());
            if (Files.exists(RESOLV_CONF)) { // a shell of root's shows pasta the resolvers it forwards to, then is pasta
                if (!Files.exists(upstream)) writeUpstream(); // another server of this JVM on this run dir removed it
                pasta.addAll(List.of(tools.unshare().toString(), "--mount", "--propagation", "private", tools.sh().toString(), "-c",
                        tools.mount() + " --bind \"$0\" " + RESOLV_CONF + " && exec \"$@\"", upstream.toString()));
            }
            pasta.addAll(List.of(tools.pasta().toString(), "--runas", Integer.toString(uid)));
            if (uid != 0) {
                pasta.addAll(List.of("--userns", network.owner().toString()));
                // pasta opens its pid file after it has become that uid
                Files.createFile(pastaPid);
                Files.setAttribute(pastaPid, "unix:gid", uid);
                Files.setAttribute(pastaPid, "unix:uid", uid);
            }
            pasta.addAll(List.of("--quiet", "--pid", pastaPid.toString(), "--netns", handle.toString(), "--config-net", "--no-map-gw",
                    "-t", port > 0 ? "127.0.0.1/" + port + ":" + port : "none",
                    "-u", "none", "-U", "none",
                    "-T", forwards.isEmpty() ? "none" : String.join(",", forwards.stream().map(String::valueOf).toList())));
            for (InetAddress f : dns.forwarders()) pasta.addAll(List.of("--dns-forward", f.getHostAddress()));
            step(() -> ToolRun.run("pasta", pasta, null), said -> said.contains("tun") || said.contains("mknod") || said.contains("/dev/net")
                    ? SandboxProblem.tun(said) : SandboxProblem.network(said));
            if (paired) step(() -> veths.map(network.veth(), port), SandboxProblem::network); // pasta holds the port now
            if (ahead) {
                String pid = Files.readString(pastaPid).strip();
                ToolRun.run(List.of(tools.renice().toString(), "-n", "0", "-p", pid), null);
            }
        } catch (IOException | RuntimeException e) {
            remove(network);
            throw e;
        }
        return network;
    }

    private interface Step {
        void run() throws IOException;
    }

    /** Runs a step of a network's set-up; its failure names the part of the sandbox it belongs to. */
    private static void step(Step step, Function<String, SandboxProblem> part) throws IOException {
        try {
            step.run();
        } catch (IOException e) {
            throw new SandboxProblem.Failure(part.apply(e.getMessage()), e);
        }
    }

    /**
     * The start of a pasta's command in a mount namespace of its own whose {@code /dev/net} is a tmpfs with a tun
     * node of the configured device's numbers: the pasta, as its uid, opens that node, which nothing outside that
     * namespace can reach (pasta then leaves it for an empty root of its own).
     */
    private List<String> withOwnTunNode() throws IOException {
        Path device = tools.tunDevice();
        int mode;
        long rdev;
        try {
            mode = ((Number) Files.getAttribute(device, "unix:mode")).intValue();
            rdev = ((Number) Files.getAttribute(device, "unix:rdev")).longValue();
        } catch (IOException e) {
            throw new SandboxProblem.Failure(SandboxProblem.tun(device + " does not exist (" + e.getMessage() + ")"), e);
        }
        if ((mode & 0170000) != 0020000) {
            throw new SandboxProblem.Failure(SandboxProblem.tun(device + " is not a character device"), null);
        }
        long major = ((rdev >>> 8) & 0xfff) | ((rdev >>> 32) & 0xfffff000L); // glibc's major() and minor()
        long minor = (rdev & 0xff) | ((rdev >>> 12) & 0xffffff00L);
        return List.of(tools.unshare().toString(), "--mount", "--propagation", "private", tools.sh().toString(), "-c",
                "\"$1\" -t tmpfs -o size=4k,mode=0755 slipway-tun /dev/net && \"$2\" -m 0666 /dev/net/tun c \"$3\" \"$4\" "
                        + "&& shift 4 && exec \"$@\"", "sh", tools.mount().toString(), tools.mknod().toString(),
                Long.toString(major), Long.toString(minor));
    }

    /**
     * Makes the cell's network namespace inside a new user namespace that a uid of the network's own owns, both
     * held by their handles, and returns that uid for its pasta; 0 when this machine does not let it make such a
     * namespace (then pastas run as root from here on, as before, and the server says so once). pasta parses
     * every packet the tenant sends: as that uid it has no capability on the host, only in the cell's network,
     * which it serves anyway. The tenant's uid owns nothing there, so it cannot change its firewall; root still
     * loads it and joins the network for the cell.
     */
    private int ownedNamespace(List<String> nice, CellNetwork network) throws IOException {
        if (!othersPass(runDir)) return rootPastas("other users cannot pass through its run dir " + runDir);
        int uid = FIRST_PASTA_UID + Math.floorMod(nextPastaUid.getAndIncrement(), PASTA_UIDS);
        // the holder makes both namespaces and waits; root binds them to their handles, then lets it go.
        // CAP_SYS_ADMIN lets it through kernels that allow user namespaces to the privileged only; it has none on the
        // host once it is in the new namespace
        List<String> argv = concat(nice, tools.setpriv().toString(), "--reuid=" + uid, "--regid=" + uid, "--clear-groups",
                "--inh-caps=+sys_admin", "--ambient-caps=+sys_admin",
                tools.unshare().toString(), "--user", "--map-root-user", "--net", tools.sh().toString(), "-c", "echo ready; read x");
        ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true);
        pb.environment().clear();
        pb.environment().put("PATH", ToolRun.PATH);
        Process holder = pb.start();
        try {
            var out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
            String first = out.readLine();
            if (!"ready".equals(first)) return rootPastas("its user namespace could not be made: " + first);
            Files.createFile(network.owner());
            String ns = "/proc/" + holder.pid() + "/ns/";
            ToolRun.run(List.of(tools.mount().toString(), "--bind", ns + "user", network.owner().toString()), null);
            ToolRun.run(List.of(tools.mount().toString(), "--bind", ns + "net", network.handle().toString()), null);
            return uid;
        } finally {
            holder.getOutputStream().close();
            try {
                if (!holder.waitFor(2, TimeUnit.SECONDS)) holder.destroyForcibly();
            } catch (InterruptedException e) {
                holder.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    private static boolean othersPass(Path dir) throws IOException {
        for (Path d = dir.toAbsolutePath(); d != null; d = d.getParent()) {
            if (!Files.getPosixFilePermissions(d).contains(PosixFilePermission.OTHERS_EXECUTE)) return false;
        }
        return true;
    }

    private int rootPastas(String why) {
        rootPastas = why;
        LOG.warn("cell networks' pastas run as root on this machine: {}", why);
        return 0;
    }

    private static List<String> concat(List<String> prefix, String... argv) {
        List<String> all = new ArrayList<>(prefix);
        all.addAll(List.of(argv));
        return all;
    }

    /** Unmaps its port and removes its veth pair, stops its pasta (waiting until its port is free) and lets the namespace go. */
    void remove(CellNetwork network) {
        detachVeth(network.veth());
        try {
            stopPasta(network.pastaPid());
        } catch (RuntimeException e) {
            LOG.warn("could not stop a cell's pasta: {}", e.toString());
        }
        unmount(network.handle());
        unmount(network.owner());
    }

    /** Whether new cells get a veth pair. */
    private boolean pairs() {
        return veths != null && pastaInbound == null;
    }

    /** Removes a recorded veth pair, also where new cells get none (a run before this one made it). */
    private void detachVeth(Path record) {
        if (veths != null) veths.detach(record);
    }

    private void unmount(Path handle) {
        try {
            if (Files.exists(handle)) {
                try {
                    ToolRun.run(List.of(tools.umount().toString(), "--lazy", handle.toString()), null);
                } catch (IOException notMounted) {
                    // a handle whose namespace was never made, or whose mount is already gone
                }
                Files.deleteIfExists(handle);
            }
        } catch (IOException e) {
            LOG.warn("could not remove a cell's network handle {}: {}", handle.getFileName(), e.toString());
        }
    }

    /** Until {@link #close}: the mappings of this server's cells outlive it by {@link Veths#MAPPED_FOR} at most. */
    private void renewMappings() {
        while (true) {
            try {
                Thread.sleep(Veths.RENEW_EVERY); // the renewal's period, not a wait for work
            } catch (InterruptedException e) {
                return;
            }
            if (!Files.isDirectory(runDir)) return; // swept: a server of this run dir is gone
            veths.renew(runDir);
        }
    }

    /** Removes the resolv.conf its pastas read (once its networks are removed). */
    void close() {
        if (renewer != null) renewer.interrupt();
        try {
            Files.deleteIfExists(upstream);
        } catch (IOException e) {
            LOG.debug("{} kept: {}", upstream, e.toString());
        }
    }

    /**
     * Removes what networks of an earlier run of this server left in the run dir (their pastas, then their handles),
     * but those of cells adopted now.
     */
    void sweep(Set<CellNetwork> adopted) {
        Set<Path> spared = new HashSet<>();
        for (CellNetwork n : adopted) spared.addAll(List.of(n.handle(), n.owner(), n.pastaPid(), n.veth()));
        sweep(runDir, spared);
    }

    /** The same for the run dir of another server of this machine that died. */
    void sweep(Path dir) {
        sweep(dir, Set.of());
    }

    private void sweep(Path dir, Set<Path> spared) {
        for (String suffix : List.of(CellNetwork.VETH, ".pasta", ".net", ".user")) {
            try (var entries = Files.list(dir)) {
                for (Path p : entries.toList()) {
                    if (!p.getFileName().toString().endsWith(suffix) || spared.contains(p)) continue;
                    if (suffix.equals(".pasta")) stopPasta(p);
                    else if (suffix.equals(CellNetwork.VETH)) detachVeth(p);
                    else unmount(p);
                }
            } catch (IOException e) {
                LOG.warn("could not sweep {}: {}", dir, e.toString());
            }
        }
    }

    /** Stops a pasta and waits until it is gone, so that its port is free for the next start. */
    private static void stopPasta(Path pidFile) {
        if (!Files.exists(pidFile)) return;
        try {
            long pid = Long.parseLong(Files.readString(pidFile).strip());
            ProcessHandle.of(pid).filter(Networks::isPasta).ifPresent(h -> {
                h.destroyForcibly();
                // not our child (it daemonised): onExit() would poll it slowly; /proc says at once
                if (!Await.gone(pid, Duration.ofSeconds(2))) LOG.warn("pasta {} did not exit", pid);
            });
            Files.deleteIfExists(pidFile);
        } catch (IOException | NumberFormatException e) {
            // no pasta ran for it
        }
    }

    /** Whether the network's pasta still runs (an adopted cell's network is whole). */
    static boolean connected(CellNetwork network) {
        try {
            long pid = Long.parseLong(Files.readString(network.pastaPid()).strip());
            return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).filter(Networks::isPasta).isPresent();
        } catch (IOException | NumberFormatException e) {
            return false;
        }
    }

    private static boolean isPasta(ProcessHandle h) {
        try {
            String comm = Files.readString(Path.of("/proc", Long.toString(h.pid()), "comm")).strip();
            return comm.startsWith("pasta") || comm.startsWith("passt");
        } catch (IOException e) {
            return false;
        }
    }
}
