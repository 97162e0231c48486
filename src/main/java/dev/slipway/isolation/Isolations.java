package dev.slipway.isolation;

import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/** Picks the server's {@link Confinement} from {@code --isolation} and what this machine has. */
public final class Isolations {
    private static final Logger LOG = LoggerFactory.getLogger(Isolations.class);

    private Isolations() {}

    /**
     * The sandbox when its tools are there and its start check ({@link Sandbox#check}) ran a cell; else, with
     * {@code auto}, apps unconfined for the first account only ({@link AccountAdmission}).
     *
     * @param runDir where the sandbox keeps its handles (inside the data dir, the server's alone)
     * @param scope  this server's node id
     * @throws IsolationUnavailable when the sandbox is required and does not work; the message names the part and its fix
     */
    public static Confinement choose(IsolationMode mode, Jdbi jdbi, Path runDir, String scope, NetworkPolicy network,
                                     int warmNetworks, SandboxSettings settings) throws IOException {
        if (mode == IsolationMode.NONE) return new Unconfined();
        SandboxTools.Detection found = SandboxTools.detect(settings);
        SandboxProblem problem = found.problem();
        if (problem == null) {
            Sandbox sandbox = new Sandbox(found.tools(), new Identities(jdbi), network, runDir, scope, warmNetworks);
            try {
                Duration took = sandbox.check();
                LOG.info("sandbox start check: a cell (user namespace, firewall, pasta network, cgroups, bubblewrap) ran in {} ms",
                        took.toMillis());
                return sandbox;
            } catch (SandboxProblem.Failure e) {
                sandbox.close();
                problem = e.problem();
                LOG.debug("sandbox start check failed", e);
            }
        }
        if (mode == IsolationMode.SANDBOX) {
            throw new IsolationUnavailable("--isolation=sandbox, but the sandbox does not work on this machine: "
                    + problem.message() + "; or start with --isolation=none to run apps NOT isolated");
        }
        return new Unconfined(problem);
    }

    /**
     * Where the sandbox keeps its network namespace handles and pasta pid files: machine runtime state under
     * {@code /run} (gone at a reboot, as the processes they name are), else in the data dir.
     */
    public static Path runDir(Path dataDir, String nodeId) {
        Path run = Path.of("/run");
        return Files.isDirectory(run) && Files.isWritable(run) ? run.resolve("slipway").resolve(nodeId) : dataDir.resolve("run");
    }
}
