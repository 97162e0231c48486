package dev.slipway.runtime.local;

import dev.slipway.core.FileTrees;
import dev.slipway.isolation.Cell;
import dev.slipway.isolation.Confined;
import dev.slipway.isolation.Confinement;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;
import dev.slipway.logs.Masker;
import dev.slipway.runtime.AppSpec;
import dev.slipway.runtime.HealthSpec;
import dev.slipway.runtime.ProcessState;
import dev.slipway.runtime.Backoff;
import dev.slipway.runtime.Instance;
import dev.slipway.runtime.InstanceStore;
import dev.slipway.runtime.RuntimeSettings;
import dev.slipway.runtime.Volume;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One app instance: launches its process on a port that routes point at (a restart keeps it, unless
 * something else has taken it meanwhile: then the restart moves to a new port and routes to the old one
 * go stale, so the router finds the instance again), pumps its output to the log, and once supervised
 * restarts it after a crash with exponential backoff. {@link #stop} turns restarts off before it signals
 * the process group.
 */
final class Supervisor {
    /** @param outputDir where the apps' output files are ({@link OutputFile}) */
    /** @param servingChanged told when {@link #stopping} or {@link #restarting} changes ({@code AppRuntime.onServingChange}) */
    record Context(RuntimeSettings options, InstanceStore store, Clock clock, HealthCheck health,
                   ScheduledExecutorService timer, Map<String, String> serverEnv, Confinement confinement, Ports ports,
                   Path outputDir, Runnable servingChanged, Volumes volumes) {}

    /** Mounts a project's volumes for one of its cells; a runtime without volumes refuses any. */
    @FunctionalInterface
    interface Volumes {
        Volumes NONE = (projectId, volumes) -> {
            if (!volumes.isEmpty()) throw new IOException("this server keeps no volumes");
            return List.of();
        };

        List<Cell.Mount> mount(String projectId, List<Volume> volumes) throws IOException;
    }

    /** Where a restart goes when its port is taken. */
    interface Ports {
        /** Gives the supervisor a new port ({@link #movedTo}) and returns it; routes to {@code from} go stale. */
        int move(Supervisor s, int from);
    }

    /** How long a restart waits for its port to be free before it takes another. */
    private static final Duration PORT_WAIT = Duration.ofSeconds(1);

    private final AppSpec spec;
    private final OutputLog log;
    /** Written only by the start or restart in progress; read by the router on every request. */
    private volatile int port;
    private final Context ctx;
    private final Masker mask;
    private final OutputTail tail = new OutputTail(20);

    // guarded by this
    /** The current process, started here or adopted. */
    private ProcessHandle process;
    private Confined confined;
    /** Where its output is read from, from the first launch or the adoption on. */
    private OutputFile outputFile;
    /** Left running for the next server ({@link #leave}): nothing here watches or restarts it any more. */
    private boolean left;
    private long pgid;
    private Instant startedAt;
    private boolean stopping;
    private boolean supervised;
    /** Written under the lock; read without it (the router asks on every request). */
    private volatile boolean restarting;
    private int crashes;
    private ScheduledFuture<?> pendingRestart;
    /** The crashed process's cell, released before the restart. */
    private Confined releasing;
    /** Without a sandbox: the instance's TMPDIR, made empty at each launch and deleted at stop (guarded by this). */
    private Path scratch;
    private static final String SCRATCH_PREFIX = "slipway-tmp-";
    /** {@link #stopping}, readable without the lock: the router asks on every request. */
    private volatile boolean stopRequested;
    /** Its last health check failed: the router sends it nothing until one passes (written under the lock). */
    private volatile boolean failing;
    private int failedChecks;
    private ScheduledFuture<?> liveness;
    private final AtomicBoolean checking = new AtomicBoolean();

    Supervisor(AppSpec spec, OutputLog log, int port, Context ctx) {
        this.spec = spec;
        this.log = log;
        this.port = port;
        this.ctx = ctx;
        this.mask = new Masker(spec.secretValues());
    }

    int port() {
        return port;
    }

    /** Where its output and its workers' go, and its restarts are told. */
    OutputLog output() {
        return log;
    }

    void movedTo(int newPort) {
        port = newPort;
    }

    AppSpec spec() {
        return spec;
    }

    synchronized ProcessHandle process() {
        return process;
    }

    /** True once {@link #stop} began: the instance no longer serves and is not reused. */
    boolean stopping() {
        return stopRequested;
    }

    /** True between a crash and the answer of its restart, and while its health check fails: the router answers 503. */
    boolean restarting() {
        return restarting || failing;
    }

    /** Its process as a deployment read shows it. */
    synchronized ProcessState state() {
        String state = stopRequested ? "stopped" : restarting ? "restarting" : "running";
        // crashes in a row: none once the process has stayed up (its next crash starts the count again)
        boolean stayedUp = !restarting && startedAt != null
                && Duration.between(startedAt, ctx.clock().instant()).compareTo(ctx.options().stableAfter()) >= 0;
        return new ProcessState(ProcessState.WEB, state, stayedUp ? 0 : crashes);
    }

    /** What its cell uses now; empty when nothing measures it (unconfined) or it has no process. */
    synchronized java.util.Optional<dev.slipway.isolation.CellUsage> usage() {
        return confined == null ? java.util.Optional.empty() : confined.usage();
    }

    synchronized Instance instance() {
        return new Instance(spec.deploymentId(), spec.projectId(), port, process == null ? 0 : process.pid(), startedAt);
    }

    /** Starts the process; it is not health-checked yet. */
    void launch() throws IOException {
        boolean sandboxed = ctx.confinement().isolated();
        OutputFile out = outputFile();
        Confined started = ctx.confinement().start(LaunchCommand.cell(spec, port, ctx.store().nodeId(), ctx.serverEnv(),
                sandboxed, sandboxed ? LaunchCommand.SANDBOX_TMP : freshScratch())
                .withMounts(ctx.volumes().mount(spec.projectId(), spec.volumes())), out.path());
        Process p = started.process();
        // setsid, not a group leader when spawned, calls setsid() and execs: the app's group id is its pid.
        // Until that call the child is still in the server's group, so wait for it before anyone signals.
        long group = p.pid();
        if (!ProcessGroups.awaitLeader(p)) {
            p.destroyForcibly();
            started.release();
            throw new IOException("the process did not start its own session");
        }
        Instant now = ctx.clock().instant();
        boolean abandoned;
        synchronized (this) {
            abandoned = stopping;
            if (!abandoned) {
                process = p.toHandle();
                confined = started;
                pgid = group;
                startedAt = now;
                failing = false;
                failedChecks = 0;
            }
        }
        if (abandoned) { // stop() ran while we were spawning
            ProcessGroups.terminate(group, Duration.ZERO);
            started.release();
            deleteScratch();
            return;
        }
        ctx.store().recordProcess(spec.deploymentId(), p.pid(), group, port, now, startMillis(p.toHandle()));
        p.onExit().thenAccept(x -> exited(x.toHandle(), x.exitValue()));
    }

    /**
     * Takes over the process an earlier server started and left running (its cell adopted, its group {@code group}):
     * it is watched from now on, its output read on from where that server stopped, and nothing is restarted.
     */
    void adopt(Confined cell, long group, Instant started) throws IOException {
        OutputFile out = OutputFile.resumed(outputPath(), log, mask, tail::add);
        ProcessHandle h = cell.handle();
        Path earlierScratch = earlierScratch(h);
        synchronized (this) {
            outputFile = out;
            process = h;
            confined = cell;
            pgid = group;
            startedAt = started;
            scratch = earlierScratch; // deleted when the process ends here, as one started here
        }
        // not our child: its exit status is what its cell recorded (a sandbox's does; an unconfined process's is unknown)
        h.onExit().thenAccept(x -> exited(x, cell.exitCode().orElse(-1)));
    }

    /** When the kernel started the process (epoch ms), what tells it from a later one that reuses its pid. */
    static Long startMillis(ProcessHandle h) {
        return h.info().startInstant().map(Instant::toEpochMilli).orElse(null);
    }

    private synchronized OutputFile outputFile() throws IOException {
        if (outputFile == null) outputFile = OutputFile.fresh(outputPath(), log, mask, tail::add);
        return outputFile;
    }

    private Path outputPath() {
        return ctx.outputDir().resolve(spec.deploymentId() + ".out");
    }

    /** Blocks until the current process answers HTTP, exits, or the deadline passes. */
    HealthCheck.Outcome awaitHealthy() {
        return awaitHealthy(waited -> { });
    }

    /** As {@link #awaitHealthy()}; {@code nothingListens} hears once that the app listens on no port at all yet. */
    HealthCheck.Outcome awaitHealthy(java.util.function.Consumer<Duration> nothingListens) {
        Confined c;
        synchronized (this) {
            c = confined;
        }
        Process p = c == null ? null : c.process();
        if (p == null) return new HealthCheck.Outcome.Exited(-1);
        try {
            return ctx.health().await(port, spec.health(), p, ctx.options().healthTimeout(), ctx.options().healthPoll(), nothingListens);
        } finally {
            c.settle(); // its start is over: the CPU of its type from here on
        }
    }

    /** From now on a crash restarts the app, and so does its health check failing while it runs (when it has one). */
    void supervise() {
        String message = null;
        synchronized (this) {
            supervised = true;
            Duration every = spec.health().interval();
            if (every != null && liveness == null) {
                liveness = ctx.timer().scheduleWithFixedDelay(() -> {
                    // off the shared timer: a probe may take its whole timeout
                    if (checking.compareAndSet(false, true)) Thread.ofVirtual().name("health-" + spec.deploymentId()).start(() -> {
                        try {
                            check();
                        } finally {
                            checking.set(false);
                        }
                    });
                }, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
            }
            if (process != null && !process.isAlive() && !stopping && pendingRestart == null) {
                message = crashed(confined.process() == null ? -1 : confined.process().exitValue());
            }
        }
        if (message != null) safeLog(Level.ERROR, message);
    }

    /** Reads what the app printed up to now into its log (before a line about it, so the log keeps the order). */
    void drainOutput() {
        OutputFile out;
        synchronized (this) {
            out = outputFile;
        }
        if (out != null) out.drain();
    }

    /** Output the app printed last, all of it read. */
    List<String> lastOutput() {
        drainOutput();
        return tail.lines();
    }

    /** Turns restarts off, then SIGTERM to the group and SIGKILL after the grace period. */
    void stop(Duration grace) {
        long group;
        Confined cell;
        synchronized (this) {
            stopping = true;
            stopRequested = true;
            restarting = false;
            failing = false;
            if (liveness != null) liveness.cancel(false);
            if (pendingRestart != null) pendingRestart.cancel(false);
            pendingRestart = null;
            group = process == null ? 0 : pgid;
            cell = confined;
        }
        ctx.servingChanged().run(); // before the port closes: the edge stops sending requests to it first
        if (group > 0) ProcessGroups.terminate(group, grace);
        if (cell != null) cell.release();
        deleteScratch();
        OutputFile out;
        synchronized (this) {
            out = outputFile;
            outputFile = null;
        }
        if (out != null) out.delete();
    }

    /**
     * Leaves the process running for the next server to adopt: no restart is pending any more, its exit is not watched
     * here, and its output file keeps what it writes from now on. A crashed app waiting for its restart is restarted by
     * the next server.
     */
    void leave() {
        OutputFile out;
        synchronized (this) {
            left = true;
            if (liveness != null) liveness.cancel(false);
            if (pendingRestart != null) pendingRestart.cancel(false);
            pendingRestart = null;
            out = outputFile;
        }
        if (out != null) out.close();
    }

    /** A new empty scratch directory for the process about to start (a restart does not see the crashed one's files). */
    private synchronized Path freshScratch() throws IOException {
        if (scratch != null) FileTrees.delete(scratch);
        scratch = Files.createTempDirectory(SCRATCH_PREFIX + spec.deploymentId() + "-");
        return scratch;
    }

    /**
     * The scratch directory the earlier server made for the process adopted now, or null: an unconfined app's
     * {@code TMPDIR}, read from its environment (a sandboxed app's is a tmpfs of its cell).
     */
    private Path earlierScratch(ProcessHandle h) {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath();
        return ProcessGroups.environment(h.pid(), "TMPDIR").map(d -> Path.of(d).toAbsolutePath().normalize())
                .filter(d -> tmp.equals(d.getParent()) && d.getFileName().toString().startsWith(SCRATCH_PREFIX + spec.deploymentId() + "-"))
                .filter(d -> Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS)).orElse(null);
    }

    private synchronized void deleteScratch() {
        if (scratch == null) return;
        try {
            FileTrees.delete(scratch);
        } catch (RuntimeException e) {
            safeLog(Level.WARNING, "Could not delete the app's scratch directory " + scratch + ": " + e.getMessage());
        }
        scratch = null;
    }

    /**
     * One check of a running app's health: while checks fail the router sends it nothing; {@code failures} failed
     * checks in a row stop it, and its restart follows as after a crash. Checks in the grace after a start do not count.
     */
    private void check() {
        HealthSpec health = spec.health();
        ProcessHandle current;
        long group;
        synchronized (this) {
            if (stopping || left || restarting || process == null || !process.isAlive()) return;
            if (startedAt != null && Duration.between(startedAt, ctx.clock().instant()).compareTo(health.grace()) < 0) return;
            current = process;
            group = pgid;
        }
        String problem;
        try {
            int status = HealthCheck.probe(port, health.path());
            problem = health.passes(status) ? null : "it answered HTTP " + status + " on " + health.path() + " (wants " + health.range() + ")";
        } catch (IOException e) {
            problem = (e.getMessage() == null ? e.toString() : e.getMessage()) + " on " + health.path();
        }
        boolean changed;
        int failed;
        synchronized (this) {
            if (current != process || stopping || left || restarting) return;
            changed = failing != (problem != null);
            failing = problem != null;
            failedChecks = problem == null ? 0 : failedChecks + 1;
            failed = failedChecks;
        }
        if (changed) ctx.servingChanged().run();
        if (problem == null) {
            if (changed) safeLog(Level.INFO, "App passes its health check again (" + health.path() + ")");
            return;
        }
        safeLog(Level.WARNING, "Health check failed (" + failed + " of " + health.failures() + " in a row): " + problem
                + (failed == 1 ? "; requests get 503 until it passes" : ""));
        if (failed >= health.failures()) {
            safeLog(Level.ERROR, "App failed its health check " + failed + " times in a row: restarting it");
            ProcessGroups.terminate(group, ctx.options().stopGrace());
        }
    }

    /** @param code its exit status; -1 when unknown (a process this JVM did not start) */
    private void exited(ProcessHandle p, int code) {
        String message;
        synchronized (this) {
            if (!p.equals(process) || stopping || left || !supervised) return;
            message = crashed(code);
        }
        safeLog(Level.ERROR, message);
    }

    /** Why the current process ended: a kill for its memory limit, or its exit code. */
    synchronized String exitReason(int code) {
        if (confined != null && confined.outOfMemory()) {
            return "was killed: Out of memory (limit " + confined.limits().memoryLabel() + ")";
        }
        return describeExit(code);
    }

    /** Schedules the restart; the caller holds the lock and logs the returned message. */
    private String crashed(int exitCode) {
        Duration up = startedAt == null ? Duration.ZERO : Duration.between(startedAt, ctx.clock().instant());
        if (up.compareTo(ctx.options().stableAfter()) >= 0) crashes = 0;
        crashes++;
        Duration delay = Backoff.delay(crashes, ctx.options().backoffMin(), ctx.options().backoffMax());
        restarting = true;
        ctx.servingChanged().run();
        long crashedGroup = pgid;
        pendingRestart = ctx.timer().schedule(() -> Thread.ofVirtual().name("restart-" + spec.deploymentId())
                .start(() -> relaunch(crashedGroup)), delay.toMillis(), TimeUnit.MILLISECONDS);
        String reason = confined != null && confined.outOfMemory()
                ? "Out of memory (limit " + confined.limits().memoryLabel() + ")" : describeExit(exitCode);
        if (confined != null) {
            Confined done = confined;
            Thread.ofVirtual().start(done::release); // its pasta holds the port the restart needs: gone before it
            releasing = done;
        }
        return "App crashed: " + reason + " after " + human(up)
                + "; restarting in " + human(delay) + " (crash " + crashes + " in a row)";
    }

    private void relaunch(long crashedGroup) {
        Confined previous;
        synchronized (this) {
            if (stopping || left) return;
            pendingRestart = null;
            previous = releasing;
            releasing = null;
        }
        // children of the crashed process may still hold the port
        ProcessGroups.terminate(crashedGroup, Duration.ZERO);
        if (previous != null) previous.release();
        int from = port;
        if (!FreePorts.awaitFree(from, PORT_WAIT)) {
            int to = ctx.ports().move(this, from);
            safeLog(Level.WARNING, "Port " + from + " is taken by another process: the app restarts on port " + to);
        }
        try {
            launch();
        } catch (IOException | RuntimeException e) {
            safeLog(Level.ERROR, "App could not be restarted: " + e.getMessage());
            String message = null;
            synchronized (this) {
                if (!stopping) message = crashed(-1);
            }
            if (message != null) safeLog(Level.ERROR, message);
            return;
        }
        ProcessHandle current = process();
        if (current == null) return;
        safeLog(Level.INFO, "App restarted (pid " + current.pid() + ")");
        HealthCheck.Outcome outcome = awaitHealthy();
        synchronized (this) {
            if (current != process || stopping) return;
            if (outcome instanceof HealthCheck.Outcome.Healthy) restarting = false;
        }
        ctx.servingChanged().run();
        switch (outcome) {
            case HealthCheck.Outcome.Healthy h -> safeLog(Level.INFO, "App answers again on port " + port);
            case HealthCheck.Outcome.TimedOut t -> safeLog(Level.WARNING, "App restarted but does not answer HTTP on port "
                    + port + " after " + human(ctx.options().healthTimeout()) + " (" + t.lastProblem() + ")");
            case HealthCheck.Outcome.WrongPort w -> safeLog(Level.WARNING, "App restarted but "
                    + LocalProcessRuntime.wrongPort(port, w.listening()).substring("App ".length()));
            case HealthCheck.Outcome.Exited x -> { } // exited() has scheduled the next attempt
        }
    }

    static String describeExit(int code) {
        if (code == -1) return "exited";
        if (code > 128 && code < 160) return "exited with code " + code + " (signal " + (code - 128) + ")";
        return "exited with code " + code;
    }

    static String human(Duration d) {
        long ms = d.toMillis();
        if (ms < 1000) return ms + " ms";
        if (ms < 60_000) return String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
        return (ms / 60_000) + " min " + (ms % 60_000) / 1000 + " s";
    }

    private void safeLog(Level level, String message) {
        try {
            log.log(level, message);
        } catch (RuntimeException ignored) {
            // the log must not break supervision
        }
    }
}
