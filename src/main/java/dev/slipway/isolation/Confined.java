package dev.slipway.isolation;

import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * A started cell: its process (for a sandbox, the sandbox's monitor, whose exit status is the program's),
 * and what must be undone when it ends. A cell adopted from an earlier run of the server ({@link Confinement#adopt})
 * is not this JVM's child: it has a handle and no {@link Process}.
 */
public final class Confined {
    private final Process process;
    private final ProcessHandle handle;
    private final Runnable release;
    private final Supplier<Boolean> outOfMemory;
    private final Limits limits;
    private final Supplier<OptionalInt> recordedExit;
    /** Puts the cell at its type's CPU quota after the start's (once; null: nothing to settle). */
    private final AtomicReference<Runnable> settle = new AtomicReference<>();
    /** Reads what the cell uses; null: nothing measures it (an unconfined process). */
    private volatile Supplier<CellUsage> usage;

    Confined(Process process, Runnable release, Supplier<Boolean> outOfMemory, Limits limits) {
        this(process, process.toHandle(), release, outOfMemory, limits, OptionalInt::empty);
    }

    private Confined(Process process, ProcessHandle handle, Runnable release, Supplier<Boolean> outOfMemory, Limits limits,
                     Supplier<OptionalInt> recordedExit) {
        this.process = process;
        this.handle = handle;
        this.release = release;
        this.outOfMemory = outOfMemory;
        this.limits = limits;
        this.recordedExit = recordedExit;
    }

    /**
     * A cell of an earlier run of the server, still running.
     *
     * @param recordedExit its program's exit status once it ended, as its cell recorded it (empty: not recorded)
     */
    static Confined adopted(ProcessHandle handle, Runnable release, Supplier<Boolean> outOfMemory, Limits limits,
                            Supplier<OptionalInt> recordedExit) {
        return new Confined(null, handle, release, outOfMemory, limits, recordedExit);
    }

    /** The process this JVM started; null for an adopted cell. */
    public Process process() { return process; }

    /** Its process, started here or adopted. */
    public ProcessHandle handle() { return handle; }

    public Limits limits() { return limits; }

    /**
     * How its program ended, once it has: this JVM's child's exit value, or for an adopted cell what the cell
     * recorded (empty when it recorded nothing, as an unconfined process does not).
     */
    public OptionalInt exitCode() {
        if (process != null) return process.isAlive() ? OptionalInt.empty() : OptionalInt.of(process.exitValue());
        return recordedExit.get();
    }

    /** What the cell uses now; empty when nothing measures it. */
    public java.util.Optional<CellUsage> usage() {
        Supplier<CellUsage> u = usage;
        return u == null ? java.util.Optional.empty() : java.util.Optional.of(u.get());
    }

    /** This cell's use is read with {@code reader} (its cgroup's). */
    Confined measuredBy(Supplier<CellUsage> reader) {
        this.usage = reader;
        return this;
    }

    /** The cell started with more CPU than its type's: {@code settle} puts it back. */
    Confined settledBy(Runnable settle) {
        this.settle.set(settle);
        return this;
    }

    /**
     * Its app's start is over (it answered, or its start failed): from now on it has its type's CPU, no longer the
     * start's. Idempotent.
     */
    public void settle() {
        Runnable s = settle.getAndSet(null);
        if (s != null) s.run();
    }

    /** True when the kernel killed a process of this cell for going over its memory limit. */
    public boolean outOfMemory() {
        return outOfMemory.get();
    }

    /**
     * Kills whatever of the cell still runs and removes its cgroup and network: call once the process has
     * exited (or to abandon it). Idempotent.
     */
    public void release() {
        release.run();
    }
}
