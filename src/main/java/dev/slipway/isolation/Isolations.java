package dev.slipway.isolation;

import org.jdbi.v3.core.Jdbi;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** Picks the server's {@link Confinement} from {@code --isolation} and what this machine has. */
public final class Isolations {
    private Isolations() {}

    /**
     * @param runDir where the sandbox keeps its handles (inside the data dir, the server's alone)
     * @param scope  this server's node id
     * @throws IsolationUnavailable when the sandbox is required and cannot be had; the message says how to get it
     */
    public static Confinement choose(IsolationMode mode, Jdbi jdbi, Path runDir, String scope, NetworkPolicy network,
                                     int warmNetworks) throws IOException {
        if (mode == IsolationMode.NONE) return new Unconfined();
        SandboxTools.Detection found = SandboxTools.detect();
        if (!found.available()) {
            if (mode == IsolationMode.SANDBOX) {
                throw new IsolationUnavailable("--isolation=sandbox needs what this machine lacks: "
                        + String.join(", ", found.missing()) + ". Install with: " + SandboxTools.INSTALL
                        + " (as root), or start with --isolation=none to run apps NOT isolated");
            }
            return new Unconfined(found.missing());
        }
        return new Sandbox(found.tools(), new Identities(jdbi), network, runDir, scope, warmNetworks);
    }

    /**
     * Where the sandbox keeps its network namespace handles and pasta pid files: machine runtime state under
     * {@code /run} (gone at a reboot, as the processes they name are), else in the data dir.
     */
    public static Path runDir(Path dataDir, String nodeId) {
        Path run = Path.of("/run");
        return java.nio.file.Files.isDirectory(run) && java.nio.file.Files.isWritable(run)
                ? run.resolve("slipway").resolve(nodeId) : dataDir.resolve("run");
    }

    static String missing(List<String> missing) {
        return missing.isEmpty() ? "" : " (missing: " + String.join(", ", missing) + ")";
    }
}
