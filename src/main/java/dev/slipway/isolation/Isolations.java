package dev.slipway.isolation;

import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/** Picks the server's {@link Confinement} from {@code --isolation} and what this machine has. */
public final class Isolations {
    private static final Logger LOG = LoggerFactory.getLogger(Isolations.class);

    private Isolations() {}

    /**
     * Starts the choice: the sandbox when its tools are there and its start check ({@link Sandbox#check}) runs a
     * cell; else, with {@code auto}, apps unconfined for the first account only ({@link AccountAdmission}). The check
     * runs on a thread of its own while the server opens its store; {@link Choice#finish} waits for it.
     *
     * @param runDir where the sandbox keeps its handles (under /run, else inside the data dir: the server's alone)
     * @param scope  this server's node id
     */
    public static Choice begin(IsolationMode mode, Path runDir, String scope, NetworkPolicy network, int warmNetworks,
                               SandboxSettings settings) {
        if (mode == IsolationMode.NONE) return new Choice(mode, CompletableFuture.completedFuture(new Outcome(null, null, 0)));
        Choice choice = new Choice(mode, new CompletableFuture<>());
        Thread.ofPlatform().name("sandbox-check").daemon().start(() -> {
            try {
                choice.outcome.complete(check(choice, runDir, scope, network, warmNetworks, settings));
            } catch (Throwable e) {
                choice.outcome.completeExceptionally(e);
            }
        });
        return choice;
    }

    private static Outcome check(Choice choice, Path runDir, String scope, NetworkPolicy network, int warmNetworks,
                                 SandboxSettings settings) {
        try {
            SandboxTools.Detection found = SandboxTools.detect(settings);
            if (!found.available()) return new Outcome(null, found.problem(), 0);
            Sandbox sandbox = new Sandbox(found.tools(), projectId -> choice.identities.join().uidOf(projectId), network, runDir,
                    scope, warmNetworks);
            try {
                return new Outcome(sandbox, null, sandbox.check().toMillis());
            } catch (SandboxProblem.Failure e) {
                LOG.debug("the sandbox's start check failed", e);
                sandbox.close();
                return new Outcome(null, e.problem(), 0);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * @param sandbox the sandbox, its check passed; null with {@code problem} (or neither: isolation off by choice)
     * @param checkMillis how long its check took
     */
    private record Outcome(Sandbox sandbox, SandboxProblem problem, long checkMillis) {}

    /** A choice under way: {@link #finish} once the store is open, or {@link #abandon} when the start fails before. */
    public static final class Choice {
        private final IsolationMode mode;
        private final CompletableFuture<Outcome> outcome;
        private final CompletableFuture<Identities> identities = new CompletableFuture<>();
        /** Set once {@link #finish} handed the sandbox over: it is the server's to close from then on. */
        private volatile boolean finished;

        private Choice(IsolationMode mode, CompletableFuture<Outcome> outcome) {
            this.mode = mode;
            this.outcome = outcome;
        }

        /**
         * The confinement, once the start check ended.
         *
         * @throws IsolationUnavailable when the sandbox is required and does not work; the message names the part and its fix
         */
        public Confinement finish(Jdbi jdbi) throws IOException {
            identities.complete(new Identities(jdbi));
            long t0 = System.nanoTime();
            Outcome done = outcome();
            finished = true;
            if (done.sandbox() != null) {
                LOG.info("sandbox start check: a cell (user namespace, firewall, pasta network, cgroups, bubblewrap) ran in {} ms; "
                        + "the start waited {} ms for it", done.checkMillis(), (System.nanoTime() - t0) / 1_000_000);
                return done.sandbox();
            }
            if (done.problem() == null) return new Unconfined();
            if (mode == IsolationMode.SANDBOX) {
                throw new IsolationUnavailable("--isolation=sandbox, but the sandbox does not work on this machine: "
                        + done.problem().message() + "; or start with --isolation=none to run apps NOT isolated");
            }
            return new Unconfined(done.problem());
        }

        /** The start failed before {@link #finish}: the sandbox made for it goes. */
        public void abandon() {
            if (finished) return;
            try {
                Outcome done = outcome();
                if (done.sandbox() != null) done.sandbox().close();
            } catch (IOException | RuntimeException e) {
                LOG.debug("nothing of the sandbox to close: {}", e.toString());
            }
        }

        private Outcome outcome() throws IOException {
            try {
                return outcome.join();
            } catch (CompletionException e) {
                if (e.getCause() instanceof UncheckedIOException io) throw io.getCause();
                if (e.getCause() instanceof RuntimeException r) throw r;
                throw e;
            }
        }
    }

    /**
     * Where the sandbox keeps its network namespace handles and pasta pid files: machine runtime state under
     * {@code /run} (gone at a reboot, as the processes they name are), else in the data dir.
     */
    public static Path runDir(Path dataDir, String nodeId) {
        return onRun() ? Path.of("/run", "slipway", nodeId) : dataDir.resolve("run");
    }

    /**
     * Where the apps' output files are: beside the run dir, not in it (a server that holds no run dir, its apps
     * unconfined, has them too), on the same tmpfs. A sweep of a dead server's run dir takes its output dir along.
     */
    public static Path outputDir(Path dataDir, String nodeId) {
        return onRun() ? Path.of("/run", "slipway", nodeId + OUTPUT_SUFFIX) : dataDir.resolve("run-output");
    }

    static final String OUTPUT_SUFFIX = ".output";

    private static boolean onRun() {
        Path run = Path.of("/run");
        return Files.isDirectory(run) && Files.isWritable(run);
    }
}
