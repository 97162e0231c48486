package dev.slipway.runtime.local;

import dev.slipway.runtime.StoredInstance;

/**
 * Whether a process an earlier run of the server recorded still runs as that run left it: its pid is alive, is the
 * process the kernel started at the recorded time (not a later one that reused the pid), still leads the recorded
 * process group, and that group holds a process marked with the instance's deployment and this node.
 */
final class Adoption {
    private Adoption() {}

    static boolean stillRuns(StoredInstance row, String node) {
        if (row.pid() == null || row.pgid() == null || row.processStartMs() == null) return false;
        return sameProcess(row.pid(), row.processStartMs(), row.pgid(), row.deploymentId(), node);
    }

    static boolean sameProcess(long pid, long startMs, long pgid, String deploymentId, String node) {
        var handle = ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
        if (handle.isEmpty() || !Long.valueOf(startMs).equals(Supervisor.startMillis(handle.get()))) return false;
        if (ProcessGroups.pgidOf(pid).orElse(-1) != pgid) return false;
        for (long member : ProcessGroups.members(pgid)) {
            if (ProcessGroups.hasEnvironment(member, LaunchCommand.DEPLOYMENT_MARKER, deploymentId)
                    && ProcessGroups.hasEnvironment(member, LaunchCommand.NODE_MARKER, node)) {
                return true;
            }
        }
        return false;
    }
}
