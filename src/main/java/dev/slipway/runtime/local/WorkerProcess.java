package dev.slipway.runtime.local;

import dev.slipway.core.FileTrees;
import dev.slipway.isolation.Confined;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;
import dev.slipway.logs.Masker;
import dev.slipway.runtime.AppSpec;
import dev.slipway.runtime.Backoff;
import dev.slipway.runtime.OutputPump;
import dev.slipway.runtime.ProcessState;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One process of a Procfile beside the web one (a {@code worker:}): in a cell of its own with the app's variables
 * and instance type, without a port; its output goes to the deployment's log, each line prefixed with its name;
 * after a crash it starts again with the app's backoff. It runs as long as its deployment's app does.
 */
final class WorkerProcess {
    private final AppSpec spec;
    private final String type;
    private final int index;
    private final List<String> argv;
    private final LogSink log;
    private final Supervisor.Context ctx;
    private final Masker mask;

    // guarded by this
    private Process process;
    private Confined confined;
    private Instant startedAt;
    private boolean stopping;
    private int crashes;
    private ScheduledFuture<?> pendingRestart;
    private Path scratch;

    /** @param index its place among the deployment's workers, which names its cell */
    WorkerProcess(AppSpec spec, String type, int index, List<String> argv, LogSink log, Supervisor.Context ctx) {
        this.spec = spec;
        this.type = type;
        this.index = index;
        this.argv = List.copyOf(argv);
        this.ctx = ctx;
        this.mask = new Masker(spec.secretValues());
        this.log = (level, message) -> log.log(level, "[" + type + "] " + message);
    }

    /** Starts the process; a failure to start is logged and retried like a crash. */
    void launch() {
        try {
            launchOnce();
        } catch (IOException | RuntimeException e) {
            safeLog(Level.ERROR, "Process " + type + " could not start: " + e.getMessage());
            String message;
            synchronized (this) {
                message = stopping ? null : crashed(-1);
            }
            if (message != null) safeLog(Level.ERROR, message);
        }
    }

    private void launchOnce() throws IOException {
        boolean sandboxed = ctx.confinement().isolated();
        Path tmp = sandboxed ? LaunchCommand.SANDBOX_TMP : freshScratch();
        Confined started = ctx.confinement().start(LaunchCommand.worker(spec, index, argv, ctx.store().nodeId(), ctx.serverEnv(),
                sandboxed, tmp));
        Process p = started.process();
        if (!ProcessGroups.awaitLeader(p)) {
            p.destroyForcibly();
            started.release();
            throw new IOException("the process did not start its own session");
        }
        p.getOutputStream().close();
        String name = "worker-" + type + "-" + spec.deploymentId();
        OutputPump.start(name + "-out", p.getInputStream(), log, mask, line -> { });
        OutputPump.start(name + "-err", p.getErrorStream(), log, mask, line -> { });
        boolean abandoned;
        synchronized (this) {
            abandoned = stopping;
            if (!abandoned) {
                process = p;
                confined = started;
                startedAt = ctx.clock().instant();
            }
        }
        if (abandoned) {
            ProcessGroups.terminate(p.pid(), Duration.ZERO);
            started.release();
            return;
        }
        safeLog(Level.INFO, "Process " + type + " started: " + String.join(" ", argv));
        p.onExit().thenAccept(this::exited);
    }

    private void exited(Process p) {
        String message;
        synchronized (this) {
            if (p != process || stopping) return;
            message = crashed(p.exitValue());
        }
        safeLog(Level.ERROR, message);
    }

    /** Schedules the next start; the caller holds the lock and logs the returned message. */
    private String crashed(int exitCode) {
        Duration up = startedAt == null ? Duration.ZERO : Duration.between(startedAt, ctx.clock().instant());
        if (up.compareTo(ctx.options().stableAfter()) >= 0) crashes = 0;
        crashes++;
        Duration delay = Backoff.delay(crashes, ctx.options().backoffMin(), ctx.options().backoffMax());
        String reason = confined != null && confined.outOfMemory()
                ? "was killed: Out of memory (limit " + confined.limits().memoryLabel() + ")" : Supervisor.describeExit(exitCode);
        Confined done = confined;
        long group = process == null ? 0 : process.pid();
        confined = null;
        process = null;
        pendingRestart = ctx.timer().schedule(() -> Thread.ofVirtual().name("restart-" + type + "-" + spec.deploymentId())
                .start(() -> relaunch(group, done)), delay.toMillis(), TimeUnit.MILLISECONDS);
        return "Process " + type + " " + reason + " after " + Supervisor.human(up) + "; restarting in " + Supervisor.human(delay)
                + " (crash " + crashes + " in a row)";
    }

    private void relaunch(long crashedGroup, Confined previous) {
        synchronized (this) {
            if (stopping) return;
            pendingRestart = null;
        }
        if (crashedGroup > 0) ProcessGroups.terminate(crashedGroup, Duration.ZERO); // what it left running
        if (previous != null) previous.release();
        launch();
    }

    synchronized ProcessState state() {
        String state = stopping ? "stopped" : process != null ? "running" : "restarting";
        return new ProcessState(type, state, crashes);
    }

    /** Turns restarts off, then SIGTERM to its group and SIGKILL after {@code grace}. */
    void stop(Duration grace) {
        Process p;
        Confined cell;
        synchronized (this) {
            stopping = true;
            if (pendingRestart != null) pendingRestart.cancel(false);
            pendingRestart = null;
            p = process;
            cell = confined;
        }
        if (p != null) ProcessGroups.terminate(p.pid(), grace);
        if (cell != null) cell.release();
        synchronized (this) {
            if (scratch != null) FileTrees.delete(scratch);
            scratch = null;
        }
    }

    private synchronized Path freshScratch() throws IOException {
        if (scratch != null) FileTrees.delete(scratch);
        scratch = Files.createTempDirectory("slipway-tmp-" + type + "-" + spec.deploymentId() + "-");
        return scratch;
    }

    private void safeLog(Level level, String message) {
        try {
            log.log(level, message);
        } catch (RuntimeException ignored) {
            // the log must not break supervision
        }
    }
}
