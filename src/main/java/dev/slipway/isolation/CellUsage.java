package dev.slipway.isolation;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What a cell uses now, read from its cgroup (and, for CPU time under cgroup v1, whose cells have no cpuacct group,
 * from {@code /proc} of its processes: their own time and that of the children they reaped).
 *
 * @param cpuNanos    CPU time used since the cell started
 * @param memoryBytes memory charged to it now
 * @param memoryPeak  the most it was charged since it started (0 where the kernel does not say)
 * @param processes   processes in it now
 * @param oomKills    kills for going over its memory limit since it started
 */
public record CellUsage(long cpuNanos, long memoryBytes, long memoryPeak, int processes, long oomKills) {
    public static final CellUsage NONE = new CellUsage(0, 0, 0, 0, 0);
    /** Linux's USER_HZ: the unit of the times in {@code /proc/<pid>/stat}. */
    private static final long TICKS_PER_SECOND = 100;

    /** The sum of two cells' usage (an app's instances and workers). */
    public CellUsage plus(CellUsage o) {
        return new CellUsage(cpuNanos + o.cpuNanos, memoryBytes + o.memoryBytes, memoryPeak + o.memoryPeak,
                processes + o.processes, oomKills + o.oomKills);
    }

    /** CPU time of these processes and of the children they reaped, from {@code /proc/<pid>/stat}; a gone one counts 0. */
    static long procCpuNanos(List<Long> pids) {
        long ticks = 0;
        for (long pid : pids) {
            try {
                String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
                // after the command name in parentheses (which may hold spaces): field 3 on; utime, stime, cutime, cstime are 14-17
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
            } catch (IOException | RuntimeException gone) {
                // it exited between the listing and the read
            }
        }
        return ticks * (1_000_000_000L / TICKS_PER_SECOND);
    }

    /** A number the kernel wrote alone in a file; 0 when it is absent. */
    static long number(Path file) {
        try {
            return Long.parseLong(Files.readString(file).strip());
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
    }
}
