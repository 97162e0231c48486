package dev.slipway.isolation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Resource limits through the cgroup filesystem: v1 (a hierarchy per controller: memory, cpu, pids) or
 * v2 (one unified hierarchy), detected at start. Every group lives under {@code slipway/}.
 */
public sealed interface Cgroups permits Cgroups.V1, Cgroups.V2 {
    Path ROOT = Path.of("/sys/fs/cgroup");
    String PARENT = "slipway";
    /**
     * The weight of all cells together against the machine's other processes is that of one busy process per
     * core (cpu.shares 1024 × cores in v1, cpu.weight 100 × cores in v2). With the default weight of one
     * process, every runnable thread of the server (its JIT, the router) counted as much as all apps at once,
     * and an app's start took 60–120 ms longer than unconfined while the server was busy. Within that, each
     * cell weighs as its instance type's CPU (a starter a quarter of a performance); the quota still caps it.
     */
    int CORES = Runtime.getRuntime().availableProcessors();

    /** Makes (or resets) the group {@code slipway/<name>} with these limits. */
    Group create(String name, Limits limits) throws IOException;

    /** The group {@code slipway/<name>} as it is (a cell adopted after a restart of the server); empty when there is none. */
    Optional<Group> open(String name);

    /** Groups under {@code slipway/} (for the start-up sweep). */
    List<String> existing();

    /** Processes in the group of that name now (empty when there is no such group). */
    List<Long> members(String name);

    String describe();

    interface Group {
        void add(long pid) throws IOException;

        /** The files a process writes its pid to, to join the group (one per hierarchy). */
        List<Path> procsFiles();

        /** Kills reported for going over the memory limit since the group was made. */
        long oomKills();

        /** Processes in the group now. */
        List<Long> pids();

        /** What it uses now. */
        CellUsage usage();

        /** Sets its CPU quota in thousandths of a core (the share it weighs under contention stays as made). */
        void cpuQuota(int cpuMillis) throws IOException;

        /** SIGKILLs every process in it, then removes it (retrying while the kernel lets the last ones go). */
        void destroy();
    }

    static Optional<Cgroups> detect() {
        try {
            if (Files.isRegularFile(ROOT.resolve("cgroup.controllers"))) {
                String controllers = Files.readString(ROOT.resolve("cgroup.controllers"));
                if (controllers.contains("memory") && controllers.contains("pids") && controllers.contains("cpu")
                        && Files.isWritable(ROOT.resolve("cgroup.subtree_control"))) {
                    return Optional.of(new V2(ROOT));
                }
                return Optional.empty();
            }
            Path memory = ROOT.resolve("memory");
            Path cpu = ROOT.resolve("cpu");
            Path pids = ROOT.resolve("pids");
            if (Files.isWritable(memory) && Files.isWritable(cpu) && Files.isWritable(pids)) {
                return Optional.of(new V1(memory, cpu, pids));
            }
        } catch (IOException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    private static void write(Path file, String value) throws IOException {
        Files.writeString(file, value);
    }

    private static List<String> children(Path dir) {
        if (!Files.isDirectory(dir)) return List.of();
        try (var s = Files.list(dir)) {
            return s.filter(Files::isDirectory).map(p -> p.getFileName().toString()).toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    private static List<Long> readPids(Path procs) {
        List<Long> out = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(procs)) if (!line.isBlank()) out.add(Long.parseLong(line.strip()));
        } catch (IOException | NumberFormatException ignored) {
            // the group is gone
        }
        return out;
    }

    private static long counter(Path file, String key) {
        try {
            for (String line : Files.readAllLines(file)) {
                String[] kv = line.strip().split("\\s+");
                if (kv.length == 2 && kv[0].equals(key)) return Long.parseLong(kv[1]);
            }
        } catch (IOException | NumberFormatException ignored) {
            // no such counter on this kernel
        }
        return 0;
    }

    private static void killAndRemove(List<Path> dirs, Path procs) {
        for (int attempt = 0; attempt < 200; attempt++) {
            for (long pid : readPids(procs)) ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
            boolean removed = true;
            for (Path dir : dirs) {
                try {
                    Files.deleteIfExists(dir);
                } catch (IOException e) {
                    removed = false; // still busy: its last processes are exiting
                }
            }
            if (removed) return;
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    record V1(Path memory, Path cpu, Path pids) implements Cgroups {
        @Override
        public Group create(String name, Limits limits) throws IOException {
            List<Path> dirs = new ArrayList<>();
            for (Path controller : List.of(memory, cpu, pids)) {
                Path dir = controller.resolve(PARENT).resolve(name);
                if (Files.isDirectory(dir)) killAndRemove(List.of(dir), dir.resolve("cgroup.procs"));
                Files.createDirectories(dir);
                dirs.add(dir);
            }
            Path mem = dirs.get(0);
            if (limits.memoryBytes() > 0) {
                write(mem.resolve("memory.limit_in_bytes"), Long.toString(limits.memoryBytes()));
                // without a swap limit the group would page out past its limit instead of being stopped
                Path memsw = mem.resolve("memory.memsw.limit_in_bytes");
                if (Files.exists(memsw)) write(memsw, Long.toString(limits.memoryBytes()));
                Path swappiness = mem.resolve("memory.swappiness");
                if (Files.exists(swappiness)) {
                    try {
                        write(swappiness, "0");
                    } catch (IOException ignored) {
                        // not settable under some hierarchies; the memsw limit still holds
                    }
                }
            }
            write(cpu.resolve(PARENT).resolve("cpu.shares"), Long.toString(1024L * CORES));
            if (limits.cpuMillis() > 0) {
                write(dirs.get(1).resolve("cpu.cfs_period_us"), "100000");
                write(dirs.get(1).resolve("cpu.shares"), Long.toString(Math.max(2, limits.cpuMillis() * 1024L / 1000)));
            }
            if (limits.processes() > 0) write(dirs.get(2).resolve("pids.max"), Integer.toString(limits.processes()));
            Group group = group(name);
            if (limits.cpuMillis() > 0) group.cpuQuota(limits.cpuMillis());
            return group;
        }

        @Override
        public Optional<Group> open(String name) {
            return Files.isDirectory(pids.resolve(PARENT).resolve(name)) ? Optional.of(group(name)) : Optional.empty();
        }

        private Group group(String name) {
            List<Path> dirs = List.of(memory.resolve(PARENT).resolve(name), cpu.resolve(PARENT).resolve(name),
                    pids.resolve(PARENT).resolve(name));
            Path mem = dirs.get(0);
            return new Group() {
                @Override
                public void add(long pid) throws IOException {
                    for (Path dir : dirs) write(dir.resolve("cgroup.procs"), Long.toString(pid));
                }

                @Override
                public void cpuQuota(int cpuMillis) throws IOException {
                    write(dirs.get(1).resolve("cpu.cfs_quota_us"), Long.toString(cpuMillis * 100L));
                }

                @Override
                public List<Path> procsFiles() {
                    return dirs.stream().map(d -> d.resolve("cgroup.procs")).toList();
                }

                @Override
                public long oomKills() {
                    return counter(mem.resolve("memory.oom_control"), "oom_kill");
                }

                @Override
                public List<Long> pids() {
                    return readPids(dirs.get(2).resolve("cgroup.procs"));
                }

                @Override
                public CellUsage usage() {
                    List<Long> members = pids();
                    return new CellUsage(CellUsage.procCpuNanos(members), CellUsage.number(mem.resolve("memory.usage_in_bytes")),
                            CellUsage.number(mem.resolve("memory.max_usage_in_bytes")), members.size(), oomKills());
                }

                @Override
                public void destroy() {
                    killAndRemove(dirs, dirs.get(2).resolve("cgroup.procs"));
                }
            };
        }

        @Override
        public List<String> existing() {
            return children(pids.resolve(PARENT));
        }

        @Override
        public List<Long> members(String name) {
            return readPids(pids.resolve(PARENT).resolve(name).resolve("cgroup.procs"));
        }

        @Override
        public String describe() {
            return "cgroup v1";
        }
    }

    record V2(Path root) implements Cgroups {
        @Override
        public Group create(String name, Limits limits) throws IOException {
            Path parent = root.resolve(PARENT);
            if (!Files.isDirectory(parent)) {
                Files.createDirectories(parent);
            }
            enable(root);
            enable(parent);
            Path dir = parent.resolve(name);
            if (Files.isDirectory(dir)) killAndRemove(List.of(dir), dir.resolve("cgroup.procs"));
            Files.createDirectories(dir);
            if (limits.memoryBytes() > 0) {
                write(dir.resolve("memory.max"), Long.toString(limits.memoryBytes()));
                Path swap = dir.resolve("memory.swap.max");
                if (Files.exists(swap)) write(swap, "0");
            }
            write(parent.resolve("cpu.weight"), Long.toString(Math.min(10_000, 100L * CORES)));
            if (limits.cpuMillis() > 0) write(dir.resolve("cpu.weight"), Long.toString(Math.max(1, Math.min(10_000, limits.cpuMillis() / 10))));
            if (limits.processes() > 0) write(dir.resolve("pids.max"), Integer.toString(limits.processes()));
            Group group = group(name);
            if (limits.cpuMillis() > 0) group.cpuQuota(limits.cpuMillis());
            return group;
        }

        @Override
        public Optional<Group> open(String name) {
            return Files.isDirectory(root.resolve(PARENT).resolve(name)) ? Optional.of(group(name)) : Optional.empty();
        }

        private Group group(String name) {
            Path dir = root.resolve(PARENT).resolve(name);
            return new Group() {
                @Override
                public void add(long pid) throws IOException {
                    write(dir.resolve("cgroup.procs"), Long.toString(pid));
                }

                @Override
                public void cpuQuota(int cpuMillis) throws IOException {
                    write(dir.resolve("cpu.max"), (cpuMillis * 100L) + " 100000");
                }

                @Override
                public List<Path> procsFiles() {
                    return List.of(dir.resolve("cgroup.procs"));
                }

                @Override
                public long oomKills() {
                    return counter(dir.resolve("memory.events"), "oom_kill");
                }

                @Override
                public List<Long> pids() {
                    return readPids(dir.resolve("cgroup.procs"));
                }

                @Override
                public CellUsage usage() {
                    return new CellUsage(counter(dir.resolve("cpu.stat"), "usage_usec") * 1000, CellUsage.number(dir.resolve("memory.current")),
                            CellUsage.number(dir.resolve("memory.peak")), (int) CellUsage.number(dir.resolve("pids.current")), oomKills());
                }

                @Override
                public void destroy() {
                    Path kill = dir.resolve("cgroup.kill");
                    if (Files.exists(kill)) {
                        try {
                            write(kill, "1");
                        } catch (IOException ignored) {
                            // fall back to killing each process
                        }
                    }
                    killAndRemove(List.of(dir), dir.resolve("cgroup.procs"));
                }
            };
        }

        private static void enable(Path dir) throws IOException {
            String enabled = Files.readString(dir.resolve("cgroup.subtree_control"));
            if (!(enabled.contains("memory") && enabled.contains("pids") && enabled.contains("cpu"))) {
                write(dir.resolve("cgroup.subtree_control"), "+memory +cpu +pids");
            }
        }

        @Override
        public List<String> existing() {
            return children(root.resolve(PARENT));
        }

        @Override
        public List<Long> members(String name) {
            return readPids(root.resolve(PARENT).resolve(name).resolve("cgroup.procs"));
        }

        @Override
        public String describe() {
            return "cgroup v2";
        }
    }

    /** Removes a leftover group by name (the sweep after a crash). */
    default void remove(String name) {
        try {
            create(name, new Limits(0, 0, 0, 0)).destroy();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
