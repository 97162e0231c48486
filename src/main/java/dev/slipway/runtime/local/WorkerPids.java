package dev.slipway.runtime.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * A worker's process as the server that started it recorded it ({@code <pid> <kernel start time, epoch ms>}), so that
 * the next server adopts it only if that pid still names that process.
 */
final class WorkerPids {
    private WorkerPids() {}

    static void write(Path file, ProcessHandle process) {
        Long start = Supervisor.startMillis(process);
        if (start == null) return;
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, process.pid() + " " + start);
        } catch (IOException e) {
            // not adopted by the next server, but started again: nothing is lost
        }
    }

    /** The recorded pid when it still names the recorded process, leads its own group and carries our markers. */
    static OptionalLong stillRunning(Path file, String deploymentId, String node, Map<Long, List<Long>> groups) {
        try {
            String[] f = Files.readString(file).strip().split(" ");
            long pid = Long.parseLong(f[0]);
            long start = Long.parseLong(f[1]);
            return Adoption.sameProcess(pid, start, pid, deploymentId, node, groups) ? OptionalLong.of(pid) : OptionalLong.empty();
        } catch (IOException | RuntimeException e) {
            return OptionalLong.empty();
        }
    }
}
