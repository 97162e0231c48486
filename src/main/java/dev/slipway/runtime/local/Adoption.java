package dev.slipway.runtime.local;

import dev.slipway.runtime.StoredInstance;

import java.util.List;
import java.util.Map;

/**
 * Whether a process an earlier run of the server recorded still runs as that run left it: its pid is alive, is the
 * process the kernel started at the recorded time (not a later one that reused the pid), still leads the recorded
 * process group, and that group holds a process marked with the instance's deployment and this node.
 */
final class Adoption {
    private Adoption() {}

    /** @param groups the machine's processes by group ({@link ProcessGroups#byGroup}), read once for all instances */
    static boolean stillRuns(StoredInstance row, String node, Map<Long, List<Long>> groups) {
        if (row.pid() == null || row.pgid() == null || row.processStartMs() == null) return false;
        return sameProcess(row.pid(), row.processStartMs(), row.pgid(), row.deploymentId(), node, groups);
    }

    static boolean sameProcess(long pid, long startMs, long pgid, String deploymentId, String node, Map<Long, List<Long>> groups) {
        var handle = ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
        if (handle.isEmpty() || !Long.valueOf(startMs).equals(Supervisor.startMillis(handle.get()))) return false;
        if (ProcessGroups.pgidOf(pid).orElse(-1) != pgid) return false;
        for (long member : groups.getOrDefault(pgid, List.of())) {
            if (ProcessGroups.hasEnvironment(member, LaunchCommand.DEPLOYMENT_MARKER, deploymentId)
                    && ProcessGroups.hasEnvironment(member, LaunchCommand.NODE_MARKER, node)) {
                return true;
            }
        }
        return false;
    }
}
