package dev.slipway.isolation;

import dev.slipway.net.Cidr;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The system tools the sandbox runs, by absolute path (the server's PATH cannot substitute them), and
 * what is missing for a sandbox on this machine. {@code ip} (iproute2) is the one it can do without: without it, the
 * way into a cell is its pasta's, as where veth pairs cannot be made, and the server says so at start.
 */
public record SandboxTools(Path bwrap, Path pasta, Path nft, Path setpriv, Path nsenter, Path unshare, Path mount, Path umount,
                           Path setsid, Path truth, Path sh, Path nice, Path renice, Path mknod, Cgroups cgroups, Path tunDevice,
                           Path ip, Cidr cellNetwork) {
    public static final String INSTALL = "apt-get install bubblewrap passt nftables";

    /** The tools in the standard directories, with /dev/net/tun. */
    public static Detection detect() {
        return detect(SandboxSettings.DEFAULTS);
    }

    /** The tools, or what is missing and the command that installs it. */
    public static Detection detect(SandboxSettings settings) {
        List<String> missing = new ArrayList<>();
        Set<String> packages = new LinkedHashSet<>();
        Finder f = new Finder(settings.toolDirs(), missing, packages);
        Path bwrap = f.need("bwrap", "bubblewrap");
        Path pasta = f.need("pasta", "passt");
        Path nft = f.need("nft", "nftables");
        Path setpriv = f.need("setpriv", "util-linux");
        Path nsenter = f.need("nsenter", "util-linux");
        Path unshare = f.need("unshare", "util-linux");
        Path mount = f.need("mount", "mount");
        Path umount = f.need("umount", "mount");
        Path setsid = f.need("setsid", "util-linux");
        Path truth = f.need("true", "coreutils");
        Path sh = f.need("sh", "dash");
        Path nice = f.need("nice", "coreutils");
        Path renice = f.need("renice", "util-linux");
        Path mknod = f.need("mknod", "coreutils");
        if (!missing.isEmpty()) {
            // the three the sandbox is made of are named together: the command to give is the one docs/security.md gives
            if (packages.contains("bubblewrap") || packages.contains("passt") || packages.contains("nftables")) {
                packages.removeAll(List.of("bubblewrap", "passt", "nftables"));
                String rest = packages.isEmpty() ? "" : " " + String.join(" ", packages);
                return new Detection(null, List.copyOf(missing), new SandboxProblem("tools", "missing " + String.join(", ", missing),
                        INSTALL + rest));
            }
            return new Detection(null, List.copyOf(missing), new SandboxProblem("tools", "missing " + String.join(", ", missing),
                    "apt-get install " + String.join(" ", packages)));
        }
        if (ProcessHandle.current().info().user().map(u -> !u.equals("root")).orElse(true)) {
            missing.add("root: the server must run as root to give each project its own identity and cgroups");
            return new Detection(null, List.copyOf(missing), new SandboxProblem("identity", "the server does not run as root",
                    "run the server as root: it gives each project a uid of its own and its cgroups"));
        }
        Optional<Cgroups> cgroups = Cgroups.detect();
        if (cgroups.isEmpty()) {
            missing.add("writable cgroups (v1 memory, cpu and pids, or v2 with those controllers)");
            return new Detection(null, List.copyOf(missing), SandboxProblem.cgroups(
                    "no writable cgroups (v1 memory, cpu and pids, or v2 with those controllers)"));
        }
        return new Detection(new SandboxTools(bwrap, pasta, nft, setpriv, nsenter, unshare, mount, umount, setsid, truth, sh, nice,
                renice, mknod, cgroups.get(), settings.tunDevice(), find(settings.toolDirs(), "ip").orElse(null), settings.cellNetwork()),
                List.of(), null);
    }

    /** @param problem null when the tools are there */
    public record Detection(SandboxTools tools, List<String> missing, SandboxProblem problem) {
        public boolean available() { return tools != null; }
    }

    static Optional<Path> find(String name) {
        return find(SandboxSettings.DEFAULTS.toolDirs(), name);
    }

    static Optional<Path> find(List<Path> dirs, String name) {
        for (Path dir : dirs) {
            Path p = dir.resolve(name);
            if (Files.isExecutable(p)) return Optional.of(p);
        }
        return Optional.empty();
    }

    private record Finder(List<Path> dirs, List<String> missing, Set<String> packages) {
        Path need(String name, String pkg) {
            Optional<Path> p = find(dirs, name);
            if (p.isEmpty()) {
                missing.add(name);
                packages.add(pkg);
            }
            return p.orElse(null);
        }
    }
}
