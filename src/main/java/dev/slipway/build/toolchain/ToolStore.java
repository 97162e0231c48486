package dev.slipway.build.toolchain;

import dev.slipway.build.steps.CommandRunner;
import dev.slipway.build.Trees;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Node builds and package managers from the npm registry, each version unpacked once under
 * {@code <data dir>/toolchains/<package>/<version>} as a <em>tool home</em>: {@code package/} (the tarball)
 * and {@code bin/} (links to the package's programs). Only the server writes here, never a build step, and
 * cells see it read-only: one tenant cannot plant a file that another's build runs. A home appears by an
 * atomic rename once complete, so a half-unpacked one is never used.
 */
final class ToolStore {
    private static final Set<PosixFilePermission> DIR = PosixFilePermissions.fromString("rwxr-xr-x");
    private static final Set<PosixFilePermission> EXEC = PosixFilePermissions.fromString("rwxr-xr-x");
    private static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-r--r--");
    private static final Duration UNPACK = Duration.ofMinutes(5);

    private final Path dir;
    private final NpmRegistry registry;
    private final Map<String, ReentrantLock> locks = new ConcurrentHashMap<>();

    ToolStore(Path dir, NpmRegistry registry) {
        this.dir = dir;
        this.registry = registry;
    }

    NpmRegistry registry() {
        return registry;
    }

    Path home(String pkg, Semver.Version version) {
        return dir.resolve(pkg.replace('/', '+')).resolve(version.toString());
    }

    /** The versions already unpacked here, for when the registry cannot be reached. */
    List<Semver.Version> installed(String pkg) {
        Path parent = dir.resolve(pkg.replace('/', '+'));
        if (!Files.isDirectory(parent)) return List.of();
        try (var list = Files.list(parent)) {
            return list.map(p -> Semver.Version.parse(p.getFileName().toString())).flatMap(Optional::stream).toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /** The release's tool home, downloaded and unpacked first when it is not here yet. */
    Path install(NpmRegistry.Release release, String extraHash, String label, LogSink log) throws IOException {
        Path home = home(release.name(), release.version());
        if (Files.isDirectory(home.resolve("bin"))) return home;
        ReentrantLock lock = locks.computeIfAbsent(home.toString(), k -> new ReentrantLock());
        lock.lock();
        try {
            if (Files.isDirectory(home.resolve("bin"))) return home;
            long t0 = System.nanoTime();
            log.log(Level.INFO, "Downloading " + label + " from " + release.tarball());
            Files.createDirectories(dir);
            Files.setPosixFilePermissions(dir, DIR);
            Path tmp = dir.resolve(".tmp-" + UUID.randomUUID());
            try {
                Files.createDirectories(tmp.resolve("package"));
                Path tarball = tmp.resolve("package.tgz");
                registry.download(release, tarball, extraHash);
                long size = Files.size(tarball);
                long t1 = System.nanoTime();
                unpack(tarball, tmp.resolve("package"));
                Files.delete(tarball);
                links(tmp, release.bin());
                permissions(tmp);
                Files.createDirectories(home.getParent());
                Files.setPosixFilePermissions(home.getParent(), DIR);
                try {
                    Files.move(tmp, home, StandardCopyOption.ATOMIC_MOVE);
                } catch (FileAlreadyExistsException | DirectoryNotEmptyException raced) {
                    // another server on this data dir unpacked it meanwhile: theirs is as good
                }
                log.log(Level.INFO, String.format(Locale.ROOT, "%s: %.1f MB downloaded in %s, sha512 verified, unpacked in %s",
                        label, size / 1_000_000.0, CommandRunner.human(Duration.ofNanos(t1 - t0)),
                        CommandRunner.human(Duration.ofNanos(System.nanoTime() - t1))));
                return home;
            } finally {
                if (Files.exists(tmp)) Trees.delete(tmp);
            }
        } finally {
            lock.unlock();
        }
    }

    private static void unpack(Path tarball, Path into) throws IOException {
        String tar = Files.isExecutable(Path.of("/usr/bin/tar")) ? "/usr/bin/tar" : "/bin/tar";
        Process p = new ProcessBuilder(tar, "-xzf", tarball.toString(), "-C", into.toString(), "--strip-components=1",
                "--no-same-owner", "--no-same-permissions").redirectErrorStream(true).start();
        p.getOutputStream().close();
        String output = new String(p.getInputStream().readNBytes(4000), StandardCharsets.UTF_8).strip();
        try {
            if (!p.waitFor(UNPACK.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new IOException("unpacking " + tarball.getFileName() + " timed out");
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while unpacking", e);
        }
        if (p.exitValue() != 0) throw new IOException("tar failed with exit code " + p.exitValue() + ": " + output);
    }

    /** {@code bin/<name>} → {@code ../package/<path>} for each program the package declares. */
    private static void links(Path home, Map<String, String> bins) throws IOException {
        Path bin = Files.createDirectories(home.resolve("bin"));
        Path pkg = home.resolve("package");
        for (var e : bins.entrySet()) {
            Path target = pkg.resolve(e.getValue()).normalize();
            if (!e.getKey().matches("[A-Za-z0-9._-]+") || e.getKey().startsWith(".") || !target.startsWith(pkg)
                    || !Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)) {
                continue;
            }
            Files.setPosixFilePermissions(target, EXEC);
            Files.createSymbolicLink(bin.resolve(e.getKey()), bin.relativize(target));
        }
    }

    /** Readable by every project's uid, writable by the server alone, whatever the server's umask. */
    private static void permissions(Path home) throws IOException {
        try (var walk = Files.walk(home)) {
            for (Path p : (Iterable<Path>) walk::iterator) {
                if (Files.isSymbolicLink(p)) continue;
                if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                    Files.setPosixFilePermissions(p, DIR);
                } else {
                    boolean exec = Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS).contains(PosixFilePermission.OWNER_EXECUTE);
                    Files.setPosixFilePermissions(p, exec ? EXEC : FILE);
                }
            }
        }
    }
}
