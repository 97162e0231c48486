package dev.slipway.isolation;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Makes and removes cells' network namespaces: a new namespace held by a bind mount, the cell firewall loaded
 * into it ({@link NetworkPolicy#nftRules}), then pasta connecting it — in that order, so no packet leaves it
 * before its rules are in. Its cell joins it with nsenter before bubblewrap starts.
 */
final class Networks {
    private static final Logger LOG = LoggerFactory.getLogger(Networks.class);

    private final SandboxTools tools;
    private final Path runDir;
    private final String rules;

    Networks(SandboxTools tools, NetworkPolicy policy, Path runDir) {
        this.tools = tools;
        this.runDir = runDir;
        this.rules = policy.nftRules();
    }

    /**
     * @param name     unique among this server's networks: names its handle and pid file in the run dir
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
        CellNetwork network = new CellNetwork(handle, pastaPid, port, forwards, System.nanoTime());
        Files.deleteIfExists(handle);
        Files.createFile(handle);
        try {
            ToolRun.run(concat(nice, tools.unshare().toString(), "--net=" + handle, tools.truth().toString()), null);
            ToolRun.run(concat(nice, tools.nsenter().toString(), "--net=" + handle, tools.nft().toString(), "-f", "-"), rules);
            List<String> pasta = new ArrayList<>(concat(nice, tools.pasta().toString(), "--runas", "0", "--quiet",
                    "--pid", pastaPid.toString(), "--netns", handle.toString(), "--config-net", "--no-map-gw",
                    "-t", port > 0 ? "127.0.0.1/" + port + ":" + port : "none",
                    "-u", "none", "-U", "none",
                    "-T", forwards.isEmpty() ? "none" : String.join(",", forwards.stream().map(String::valueOf).toList())));
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

    /** Removes what networks of an earlier run of this server left in the run dir: their pastas, then their handles. */
    void sweep() {
        sweep(runDir);
    }

    /** The same for the run dir of another server of this machine that died. */
    void sweep(Path dir) {
        for (String suffix : List.of(".pasta", ".net")) {
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
