package dev.slipway.runtime.local;

import dev.slipway.build.Trees;
import dev.slipway.isolation.Cell;
import dev.slipway.isolation.Confinement;
import dev.slipway.runtime.Volume;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * The local runtime's volumes: each a sparse file under {@code <data dir>/volumes/<project>/} formatted ext4 and
 * loop-mounted beside it, so its size limit is the file system's own (a full volume is ENOSPC in the app, and the
 * host's disk keeps its room), its root owned by the project's uid. Mounts outlive the server; after a reboot the
 * next start mounts them again. Needs a server running as root (loop mounts), and the sandbox (which binds each at its
 * path in the cell).
 */
public final class VolumeDisks {
    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9-]{0,30}");
    private static final Pattern PROJECT = Pattern.compile("[a-z0-9_]{1,64}");
    private static final long MB = 1024L * 1024;
    private static final long COMMAND_SECONDS = 60;

    private final Path dir;
    private final Confinement confinement;

    /** @param dir where the volumes are: {@code <data dir>/volumes} */
    public VolumeDisks(Path dir, Confinement confinement) {
        this.dir = dir.toAbsolutePath().normalize();
        this.confinement = confinement;
    }

    /** The project's volumes mounted (made first when new), as the cell's mounts. */
    public synchronized List<Cell.Mount> mount(String projectId, List<Volume> volumes) throws IOException {
        List<Cell.Mount> out = new ArrayList<>();
        for (Volume v : volumes) out.add(new Cell.Mount(ensure(projectId, v), Path.of(v.path())));
        return out;
    }

    private Path ensure(String projectId, Volume v) throws IOException {
        if (!NAME.matcher(v.name()).matches() || !PROJECT.matcher(projectId).matches()) {
            throw new IOException("bad volume name " + v.name());
        }
        Path base = dir.resolve(projectId);
        Path image = base.resolve(v.name() + ".ext4");
        Path mountpoint = base.resolve(v.name());
        if (mounted(mountpoint)) return mountpoint;
        Files.createDirectories(mountpoint);
        long bytes = v.sizeMb() * MB;
        if (!Files.exists(image)) {
            try (RandomAccessFile f = new RandomAccessFile(image.toFile(), "rw")) {
                f.setLength(bytes); // sparse: the host's disk is used as the app writes
            }
            run(List.of("mkfs.ext4", "-q", "-F", "-m", "0", "-L", v.name(), image.toString()));
        } else if (Files.size(image) < bytes) {
            try (RandomAccessFile f = new RandomAccessFile(image.toFile(), "rw")) {
                f.setLength(bytes);
            }
            run(List.of("e2fsck", "-f", "-p", image.toString()));
            run(List.of("resize2fs", image.toString()));
        }
        run(List.of("mount", "-o", "loop,nosuid,nodev", image.toString(), mountpoint.toString()));
        confinement.handOver(mountpoint, projectId);
        return mountpoint;
    }

    /** Unmounts and deletes every volume of the project (it is being deleted). */
    public synchronized void delete(String projectId) throws IOException {
        if (!PROJECT.matcher(projectId).matches()) throw new IOException("bad project id " + projectId);
        Path base = dir.resolve(projectId);
        if (!Files.isDirectory(base)) return;
        unmount(base);
        Trees.delete(base);
    }

    /**
     * Unmounts every volume (the server stopped its apps): the next app of the project mounts it again. A stop that
     * leaves its apps running keeps them mounted.
     */
    public synchronized void unmountAll() throws IOException {
        if (!Files.isDirectory(dir)) return;
        try (var projects = Files.list(dir)) {
            for (Path project : projects.filter(Files::isDirectory).toList()) unmount(project);
        }
    }

    /** Unmounts the project's volumes that are mounted ({@code base}: its folder). */
    private static void unmount(Path base) throws IOException {
        try (var children = Files.list(base)) {
            for (Path p : children.toList()) {
                if (mounted(p)) run(List.of("umount", "--lazy", p.toString()));
            }
        }
    }

    /** Whether a file system is mounted at {@code path} (the kernel's mount table, {@code /proc/self/mountinfo}). */
    static boolean mounted(Path path) throws IOException {
        String target = path.toAbsolutePath().normalize().toString();
        for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"), StandardCharsets.UTF_8)) {
            String[] f = line.split(" ");
            if (f.length > 4 && unescape(f[4]).equals(target)) return true;
        }
        return false;
    }

    private static String unescape(String field) {
        return field.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\");
    }

    private static void run(List<String> argv) throws IOException {
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        try {
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!p.waitFor(COMMAND_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(argv.getFirst() + " did not end within " + COMMAND_SECONDS + " s");
            }
            if (p.exitValue() != 0) {
                throw new IOException(argv.getFirst() + " failed (exit code " + p.exitValue() + ")"
                        + (out.isEmpty() ? "" : ": " + out) + (argv.getFirst().equals("mount") ? "; volumes need a server running as root" : ""));
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException(argv.getFirst() + " was interrupted", e);
        }
    }
}
