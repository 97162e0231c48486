package dev.slipway.isolation;

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
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Makes and removes cells' network namespaces: a new namespace held by a bind mount (inside a user namespace of
 * its pasta's uid, {@link #ownedNamespace}), the cell firewall loaded into it ({@link NetworkPolicy#nftRules}), then
 * pasta connecting it — in that order, so no packet leaves it before its rules are in. Its cell joins it with
 * nsenter before bubblewrap starts. pasta forwards the cell's DNS queries to the resolvers of {@link CellDns}: it
 * reads them from {@code /etc/resolv.conf}, which it is shown in a mount namespace of its own.
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

    Networks(SandboxTools tools, NetworkPolicy policy, Path runDir) throws IOException {
        this.tools = tools;
        this.runDir = runDir;
        this.rules = policy.nftRules();
        this.dns = policy.dns();
        this.upstream = runDir.resolve(UPSTREAM);
        writeUpstream();
    }

    private void writeUpstream() throws IOException {
        Files.createDirectories(runDir);
        Files.writeString(upstream, dns.upstreamConf());
        Files.setPosixFilePermissions(upstream, PosixFilePermissions.fromString("rw-r--r--"));
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
        Path handle = runDir.resolve(name + ".net");
        Path pastaPid = runDir.resolve(name + ".pasta");
        CellNetwork network = new CellNetwork(handle, runDir.resolve(name + ".user"), pastaPid, port, forwards, System.nanoTime());
        Files.deleteIfExists(handle);
        Files.deleteIfExists(pastaPid);
        Files.createFile(handle);
        try {
            int uid = rootPastas == null ? ownedNamespace(nice, network) : 0;
            if (uid == 0) ToolRun.run(concat(nice, tools.unshare().toString(), "--net=" + handle, tools.truth().toString()), null);
            ToolRun.run(concat(nice, tools.nsenter().toString(), "--net=" + handle, tools.nft().toString(), "-f", "-"), rules);
            List<String> pasta = new ArrayList<>(nice);
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
            ToolRun.run(pasta, null);
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

    /** Stops its pasta (waiting until its port is free) and lets the namespace go. */
    void remove(CellNetwork network) {
        try {
            stopPasta(network.pastaPid());
        } catch (RuntimeException e) {
            LOG.warn("could not stop a cell's pasta: {}", e.toString());
        }
        unmount(network.handle());
        unmount(network.owner());
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

    /** Removes the resolv.conf its pastas read (once its networks are removed). */
    void close() {
        try {
            Files.deleteIfExists(upstream);
        } catch (IOException e) {
            LOG.debug("{} kept: {}", upstream, e.toString());
        }
    }

    /** Removes what networks of an earlier run of this server left in the run dir: their pastas, then their handles. */
    void sweep() {
        sweep(runDir);
    }

    /** The same for the run dir of another server of this machine that died. */
    void sweep(Path dir) {
        for (String suffix : List.of(".pasta", ".net", ".user")) {
            try (var entries = Files.list(dir)) {
                for (Path p : entries.toList()) {
                    if (!p.getFileName().toString().endsWith(suffix)) continue;
                    if (suffix.equals(".pasta")) stopPasta(p);
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

    private static boolean isPasta(ProcessHandle h) {
        try {
            String comm = Files.readString(Path.of("/proc", Long.toString(h.pid()), "comm")).strip();
            return comm.startsWith("pasta") || comm.startsWith("passt");
        } catch (IOException e) {
            return false;
        }
    }
}
