package dev.slipway.isolation;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The system tools the sandbox runs, by absolute path (the server's PATH cannot substitute them), and
 * what is missing for a sandbox on this machine.
 */
public record SandboxTools(Path bwrap, Path pasta, Path nft, Path setpriv, Path nsenter, Path unshare, Path mount, Path umount,
                           Path setsid, Path truth, Path sh, Path nice, Path renice, Cgroups cgroups) {
    public static final String INSTALL = "apt-get install bubblewrap passt nftables";

    /** The tools, or the list of what is missing. */
    public static Detection detect() {
        List<String> missing = new ArrayList<>();
        Path bwrap = need("bwrap", "bwrap (apt-get install bubblewrap)", missing);
        Path pasta = need("pasta", "pasta (apt-get install passt)", missing);
        Path nft = need("nft", "nft (apt-get install nftables)", missing);
        Path setpriv = need("setpriv", "setpriv (util-linux)", missing);
        Path nsenter = need("nsenter", "nsenter (util-linux)", missing);
        Path unshare = need("unshare", "unshare (util-linux)", missing);
        Path mount = need("mount", "mount (util-linux)", missing);
        Path umount = need("umount", "umount (util-linux)", missing);
        Path setsid = need("setsid", "setsid (util-linux)", missing);
        Path truth = need("true", "true (coreutils)", missing);
        Path sh = need("sh", "sh (dash)", missing);
        Path nice = need("nice", "nice (coreutils)", missing);
        Path renice = need("renice", "renice (util-linux)", missing);
        if (ProcessHandle.current().info().user().map(u -> !u.equals("root")).orElse(true)) {
            missing.add("root: the server must run as root to give each project its own identity and cgroups");
        }
        Optional<Cgroups> cgroups = Cgroups.detect();
        if (cgroups.isEmpty()) missing.add("writable cgroups (v1 memory, cpu and pids, or v2 with those controllers)");
        if (!missing.isEmpty()) return new Detection(null, List.copyOf(missing));
        return new Detection(new SandboxTools(bwrap, pasta, nft, setpriv, nsenter, unshare, mount, umount, setsid, truth, sh, nice, renice, cgroups.get()), List.of());
    }

    public record Detection(SandboxTools tools, List<String> missing) {
        public boolean available() { return tools != null; }
    }

    static Optional<Path> find(String name) {
        for (String dir : new String[]{"/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin", "/usr/local/sbin"}) {
            Path p = Path.of(dir, name);
            if (Files.isExecutable(p)) return Optional.of(p);
        }
        return Optional.empty();
    }

    private static Path need(String name, String label, List<String> missing) {
        Optional<Path> p = find(name);
        if (p.isEmpty()) missing.add(label);
        return p.orElse(null);
    }
}
