package dev.slipway.runtime.local;

import dev.slipway.core.FileTrees;
import dev.slipway.isolation.Confined;
import dev.slipway.isolation.Confinement;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;
import dev.slipway.logs.Masker;
import dev.slipway.runtime.AppSpec;
import dev.slipway.runtime.ProcessState;
import dev.slipway.runtime.Backoff;
import dev.slipway.runtime.Instance;
import dev.slipway.runtime.InstanceStore;
import dev.slipway.runtime.OutputPump;
import dev.slipway.runtime.RuntimeSettings;

import java.io.IOException;
import java.nio.file.Files;
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

/**
 * One app instance: launches its process on a port that routes point at (a restart keeps it, unless
 * something else has taken it meanwhile: then the restart moves to a new port and routes to the old one
 * go stale, so the router finds the instance again), pumps its output to the log, and once supervised
 * restarts it after a crash with exponential backoff. {@link #stop} turns restarts off before it signals
 * the process group.
 */
final class Supervisor {
    record Context(RuntimeSettings options, InstanceStore store, Clock clock, HealthCheck health,
                   ScheduledExecutorService timer, Map<String, String> serverEnv, Confinement confinement, Ports ports) {}

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
    private Process process;
    private Confined confined;
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
    private Thread[] pumps = new Thread[0];
    /** Without a sandbox: the instance's TMPDIR, made empty at each launch and deleted at stop (guarded by this). */
    private Path scratch;
    /** {@link #stopping}, readable without the lock: the router asks on every request. */
    private volatile boolean stopRequested;

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

    synchronized Process process() {
        return process;
    }

    /** True once {@link #stop} began: the instance no longer serves and is not reused. */
    boolean stopping() {
        return stopRequested;
    }

    boolean restarting() {
        return restarting;
    }

    /** Its process as a deployment read shows it. */
    synchronized ProcessState state() {
        String state = stopRequested ? "stopped" : restarting ? "restarting" : "running";
        return new ProcessState(ProcessState.WEB, state, crashes);
    }

    synchronized Instance instance() {
        return new Instance(spec.deploymentId(), spec.projectId(), port, process == null ? 0 : process.pid(), startedAt);
    }

    /** Starts the process; it is not health-checked yet. */
    void launch() throws IOException {
        boolean sandboxed = ctx.confinement().isolated();
        Confined started = ctx.confinement().start(LaunchCommand.cell(spec, port, ctx.store().nodeId(), ctx.serverEnv(),
                sandboxed, sandboxed ? LaunchCommand.SANDBOX_TMP : freshScratch()));
        Process p = started.process();
        // setsid, not a group leader when spawned, calls setsid() and execs: the app's group id is its pid.
        // Until that call the child is still in the server's group, so wait for it before anyone signals.
        long group = p.pid();
        if (!ProcessGroups.awaitLeader(p)) {
            p.destroyForcibly();
            started.release();
            throw new IOException("the process did not start its own session");
        }
        String name = "app-" + spec.deploymentId();
        Thread out = OutputPump.start(name + "-out", p.getInputStream(), log, mask, tail::add);
        Thread err = OutputPump.start(name + "-err", p.getErrorStream(), log, mask, tail::add);
        Instant now = ctx.clock().instant();
        boolean abandoned;
        synchronized (this) {
            abandoned = stopping;
            if (!abandoned) {
                process = p;
                confined = started;
                pgid = group;
                startedAt = now;
                pumps = new Thread[]{out, err};
            }
        }
        if (abandoned) { // stop() ran while we were spawning
            ProcessGroups.terminate(group, Duration.ZERO);
            started.release();
            deleteScratch();
            return;
        }
        ctx.store().recordProcess(spec.deploymentId(), p.pid(), group, port, now);
        p.onExit().thenAccept(this::exited);
    }

    /** Blocks until the current process answers HTTP, exits, or the deadline passes. */
    HealthCheck.Outcome awaitHealthy() {
        return awaitHealthy(waited -> { });
    }

    /** As {@link #awaitHealthy()}; {@code nothingListens} hears once that the app listens on no port at all yet. */
    HealthCheck.Outcome awaitHealthy(java.util.function.Consumer<Duration> nothingListens) {
        Process p = process();
        if (p == null) return new HealthCheck.Outcome.Exited(-1);
        return ctx.health().await(port, p, ctx.options().healthTimeout(), ctx.options().healthPoll(), nothingListens);
    }

    /** From now on a crash restarts the app. */
    void supervise() {
        String message = null;
        synchronized (this) {
            supervised = true;
            if (process != null && !process.isAlive() && !stopping && pendingRestart == null) {
                message = crashed(process.exitValue());
            }
        }
        if (message != null) safeLog(Level.ERROR, message);
    }

    /** Output the app printed last, once its pipes are drained (bounded wait: a child may hold them open). */
    List<String> lastOutput() {
        Thread[] current;
        synchronized (this) {
            current = pumps;
        }
        for (Thread t : current) {
            try {
                t.join(Duration.ofSeconds(1));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
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
            if (pendingRestart != null) pendingRestart.cancel(false);
            pendingRestart = null;
            group = process == null ? 0 : pgid;
            cell = confined;
        }
        if (group > 0) ProcessGroups.terminate(group, grace);
        if (cell != null) cell.release();
        deleteScratch();
    }

    /** A new empty scratch directory for the process about to start (a restart does not see the crashed one's files). */
    private synchronized Path freshScratch() throws IOException {
        if (scratch != null) FileTrees.delete(scratch);
        scratch = Files.createTempDirectory("slipway-tmp-" + spec.deploymentId() + "-");
        return scratch;
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

    private void exited(Process p) {
        String message;
        synchronized (this) {
            if (p != process || stopping || !supervised) return;
            message = crashed(p.exitValue());
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
            if (stopping) return;
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
        Process current = process();
        if (current == null) return;
        safeLog(Level.INFO, "App restarted (pid " + current.pid() + ")");
        HealthCheck.Outcome outcome = awaitHealthy();
        synchronized (this) {
            if (current != process || stopping) return;
            if (outcome instanceof HealthCheck.Outcome.Healthy) restarting = false;
        }
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
