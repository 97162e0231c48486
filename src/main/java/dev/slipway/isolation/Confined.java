package dev.slipway.isolation;

import java.util.function.Supplier;

/**
 * A started cell: its process (for a sandbox, the sandbox's monitor, whose exit status is the program's),
 * and what must be undone when it ends.
 */
public final class Confined {
    private final Process process;
    private final Runnable release;
    private final Supplier<Boolean> outOfMemory;
    private final Limits limits;

    Confined(Process process, Runnable release, Supplier<Boolean> outOfMemory, Limits limits) {
        this.process = process;
        this.release = release;
        this.outOfMemory = outOfMemory;
        this.limits = limits;
    }

    public Process process() { return process; }

    public Limits limits() { return limits; }

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
