package dev.slipway.runtime.local;

import dev.slipway.core.FileTrees;
import dev.slipway.isolation.Cell;
import dev.slipway.isolation.Confined;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;
import dev.slipway.logs.Masker;
import dev.slipway.runtime.AppSpec;
import dev.slipway.runtime.Backoff;
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
    private ProcessHandle process;
    private Confined confined;
    private OutputFile output;
    /** Left running for the next server ({@link #leave}). */
    private boolean left;
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
        OutputFile out = outputFile();
        Confined started = ctx.confinement().start(cell(tmp).withMounts(ctx.volumes().mount(spec.projectId(), spec.volumes())),
                out.path());
        Process p = started.process();
        if (!ProcessGroups.awaitLeader(p)) {
            p.destroyForcibly();
            started.release();
            throw new IOException("the process did not start its own session");
        }
        p.getOutputStream().close();
        boolean abandoned;
        synchronized (this) {
            abandoned = stopping;
            if (!abandoned) {
                process = p.toHandle();
                confined = started;
                startedAt = ctx.clock().instant();
            }
        }
        if (abandoned) {
            ProcessGroups.terminate(p.pid(), Duration.ZERO);
            started.release();
            return;
        }
        WorkerPids.write(pidFile(), p.toHandle());
        safeLog(Level.INFO, "Process " + type + " started: " + String.join(" ", argv));
        p.onExit().thenAccept(x -> exited(x.toHandle(), x.exitValue()));
    }

    /** Its cell; {@code tmp} is its scratch directory (the sandbox's own /tmp). */
    Cell cell(Path tmp) {
        return LaunchCommand.worker(spec, index, argv, ctx.store().nodeId(), ctx.serverEnv(), ctx.confinement().isolated(), tmp);
    }

    /** Where the pid of its process is kept for the next server: it has no row of its own in the store. */
    Path pidFile() {
        return ctx.outputDir().resolve(cell(LaunchCommand.SANDBOX_TMP).name() + ".pid");
    }

    /** Takes over its process that an earlier server started and left running (its cell adopted). */
    void adopt(Confined cell) throws IOException {
        OutputFile out = OutputFile.resumed(outputPath(), log, mask, line -> { });
        synchronized (this) {
            output = out;
            process = cell.handle();
            confined = cell;
            startedAt = ctx.clock().instant();
        }
        safeLog(Level.INFO, "Server restarted: process " + type + " kept running (pid " + cell.handle().pid() + ")");
        cell.handle().onExit().thenAccept(x -> exited(x, cell.exitCode().orElse(-1)));
    }

    private synchronized OutputFile outputFile() throws IOException {
        if (output == null) output = OutputFile.fresh(outputPath(), log, mask, line -> { });
        return output;
    }

    private Path outputPath() {
        return ctx.outputDir().resolve(cell(LaunchCommand.SANDBOX_TMP).name() + ".out");
    }

    private void exited(ProcessHandle p, int code) {
        String message;
        synchronized (this) {
            if (!p.equals(process) || stopping || left) return;
            message = crashed(code);
        }
        safeLog(Level.ERROR, message);
    }

    /** Leaves its process running for the next server: no restart pending, its exit not watched here. */
    void leave() {
        OutputFile out;
        synchronized (this) {
            left = true;
            if (pendingRestart != null) pendingRestart.cancel(false);
            pendingRestart = null;
            out = output;
        }
        if (out != null) out.close();
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
            if (left) return; // the next server sweeps the crashed cell
            if (stopping) {
                if (previous != null) previous.release();
                return;
            }
            pendingRestart = null;
        }
        if (crashedGroup > 0) ProcessGroups.terminate(crashedGroup, Duration.ZERO); // what it left running
        if (previous != null) previous.release();
        launch();
    }

    synchronized java.util.Optional<dev.slipway.isolation.CellUsage> usage() {
        return confined == null ? java.util.Optional.empty() : confined.usage();
    }

    synchronized ProcessState state() {
        String state = stopping ? "stopped" : process != null ? "running" : "restarting";
        return new ProcessState(type, state, crashes);
    }

    /** Turns restarts off, then SIGTERM to its group and SIGKILL after {@code grace}. */
    void stop(Duration grace) {
        ProcessHandle p;
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
        OutputFile out;
        synchronized (this) {
            if (scratch != null) FileTrees.delete(scratch);
            scratch = null;
            out = output;
            output = null;
        }
        if (out != null) out.delete();
        try {
            Files.deleteIfExists(pidFile());
        } catch (IOException e) {
            // a stale pid file is checked before it is believed
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
