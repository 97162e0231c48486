package dev.slipway.edge;

import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.jar.Attributes;
import java.util.jar.JarFile;

/**
 * What an edge process runs from, and its class-data cache.
 * <p>
 * A single jar (the launcher's {@code -jar}) is copied first, and its manifest's libraries named by absolute path: the
 * edge outlives the server, and an upgrade that rebuilds the jar in place would change the classes under a running edge
 * that has not loaded them all yet. The copy goes beside the jar, where every server of that build finds it, so the
 * launcher's training run can make one AOT cache for it (JDK 25 and later) that every later edge of the build starts
 * from: the cache holds the classes loaded and linked, and matches only the class path it was made with. Where the
 * jar's folder is not writable the copy goes into the data dir, without a cache. A class path of several entries is
 * run as it is, its cache beside its first jar when that is Slipway's (the tests' servers: their training run makes
 * it).
 *
 * @param cache the AOT cache for this class path (it may not exist yet); null: none can be made
 */
record EdgeJar(String classPath, Path cache) {
    private static final String PREFIX = "slipway-edge-";
    /** Copies the server made in data dirs before they went beside the jar, and where that is not writable. */
    private static final String DATA_DIR_COPY = "edge-\\d+-\\d+\\.jar";

    static EdgeJar of(String cp, Path dataDir) throws IOException {
        if (cp.contains(File.pathSeparator)) return asItIs(cp);
        Path jar = Path.of(cp).toAbsolutePath();
        if (!cp.endsWith(".jar") || !Files.isRegularFile(jar)) return new EdgeJar(cp, null);
        String version = Files.size(jar) + "-" + Files.getLastModifiedTime(jar).toMillis();
        Path copy;
        Path cache = null;
        try {
            copy = copy(jar, jar.getParent(), PREFIX + version + ".jar", PREFIX + "\\d+-\\d+\\.(jar|aot)");
            cache = copy.resolveSibling(PREFIX + version + ".aot");
        } catch (IOException notWritable) {
            copy = copy(jar, dataDir, "edge-" + version + ".jar", DATA_DIR_COPY);
        }
        if (cache != null) removeCopies(dataDir, DATA_DIR_COPY, null);
        StringBuilder out = new StringBuilder(copy.toString());
        try (var file = new JarFile(jar.toFile())) {
            var manifest = file.getManifest();
            String libs = manifest == null ? null : manifest.getMainAttributes().getValue(Attributes.Name.CLASS_PATH);
            if (libs != null) {
                for (String lib : libs.trim().split("\\s+")) out.append(File.pathSeparator).append(jar.getParent().resolve(lib));
            }
        }
        return new EdgeJar(out.toString(), cache);
    }

    /**
     * A class path of several entries is run as it is (whoever made it keeps its files in place, as the tests' servers
     * do); when it begins with Slipway's own jar, in a writable folder, its cache goes beside that jar.
     */
    private static EdgeJar asItIs(String cp) {
        Path first = Path.of(cp.substring(0, cp.indexOf(File.pathSeparator))).toAbsolutePath();
        String name = first.getFileName() == null ? "" : first.getFileName().toString();
        boolean cacheable = name.endsWith(".jar") && Files.isRegularFile(first) && Files.isWritable(first.getParent())
                && holdsSlipway(first);
        return new EdgeJar(cp, cacheable ? first.resolveSibling(name.substring(0, name.length() - 4) + "-edge.aot") : null);
    }

    private static boolean holdsSlipway(Path jar) {
        try (var file = new JarFile(jar.toFile())) {
            return file.getEntry("dev/slipway/Main.class") != null;
        } catch (IOException notAJar) {
            return false;
        }
    }

    /**
     * The copy of {@code jar} named {@code name} in {@code dir}, made once and held while this JVM lives; the other
     * versions' files there removed unless a running server holds them.
     */
    private static Path copy(Path jar, Path dir, String name, String earlier) throws IOException {
        Path copy = dir.resolve(name);
        for (int tries = 0; tries < 2; tries++) {
            if (!Files.exists(copy)) {
                Path tmp = Files.createTempFile(dir, name, ".tmp"); // servers of one build may copy it at once
                try {
                    Files.copy(jar, tmp, StandardCopyOption.REPLACE_EXISTING);
                    Files.move(tmp, copy, StandardCopyOption.ATOMIC_MOVE);
                } finally {
                    Files.deleteIfExists(tmp);
                }
            }
            hold(copy);
            if (Files.exists(copy)) break; // else a server of another build removed it before it was held
            release(copy);
        }
        removeCopies(dir, earlier, copy);
        return copy;
    }

    /**
     * The copies this JVM's servers start edges from, each with a shared lock until the JVM exits: a server of another
     * build whose jar is in the same folder must not remove a copy that an edge of this one still has to start from.
     */
    private static final Map<Path, FileLock> HELD = new ConcurrentHashMap<>();

    private static void hold(Path copy) {
        HELD.computeIfAbsent(copy, p -> {
            try {
                return FileChannel.open(p, StandardOpenOption.READ).lock(0, Long.MAX_VALUE, true);
            } catch (IOException gone) {
                return null;
            }
        });
    }

    private static void release(Path copy) {
        FileLock lock = HELD.remove(copy);
        if (lock == null) return;
        try {
            lock.channel().close();
        } catch (IOException ignored) {
            // closed either way
        }
    }

    /**
     * Removes the files of other versions than {@code keep}'s whose jar no server holds (an edge still running from one
     * keeps its open file; the name is gone).
     */
    private static void removeCopies(Path dir, String pattern, Path keep) throws IOException {
        String kept = keep == null ? "" : keep.getFileName().toString().replaceFirst("\\.jar$", "");
        List<Path> gone = new ArrayList<>();
        try (var files = Files.list(dir)) {
            for (Path p : files.toList()) {
                String name = p.getFileName().toString();
                if (name.matches(pattern) && !name.replaceFirst("\\.(jar|aot)$", "").equals(kept)) gone.add(p);
            }
        }
        for (Path p : gone) {
            Path itsJar = p.resolveSibling(p.getFileName().toString().replaceFirst("\\.aot$", ".jar"));
            if (HELD.containsKey(itsJar)) continue;
            if (!Files.exists(itsJar)) {
                Files.deleteIfExists(p); // a cache whose jar is gone
                continue;
            }
            // removed under an exclusive lock of its jar, so no server can take the jar up in between
            try (FileChannel channel = FileChannel.open(itsJar, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                if (channel.tryLock() != null) Files.deleteIfExists(p);
            } catch (OverlappingFileLockException | IOException heldHereGoneOrNotOurs) {
                // held by this JVM, removed by another server, or not ours to lock: kept
            }
        }
    }

    /** Where a training edge writes its cache; it becomes {@link #cache} once that edge has exited. */
    Path trainingOutput() {
        return cache.resolveSibling(cache.getFileName().toString().replaceFirst("\\.aot$", ".training.aot"));
    }

    /**
     * The JVM flags that start an edge from its cache, or, for a training run's edge when there is none yet, that make
     * one when it exits; none on a JDK before 25. A cache the JVM cannot use (another JDK made it) is ignored.
     */
    List<String> cacheFlags(boolean train) {
        List<String> flags = new ArrayList<>();
        if (trains(train)) flags.add("-XX:AOTCacheOutput=" + trainingOutput());
        else if (cacheable() && Files.isRegularFile(cache)) flags.add("-XX:AOTCache=" + cache);
        else return flags;
        flags.addAll(List.of("-Xlog:aot*=off", "-Xlog:cds*=off"));
        return flags;
    }

    /** Whether an edge started with {@link #cacheFlags} for a training run makes the cache as it exits. */
    boolean trains(boolean train) {
        return train && cacheable() && !Files.isRegularFile(cache);
    }

    /** A cache has a place, and this JDK makes and reads AOT caches. */
    private boolean cacheable() {
        return cache != null && Runtime.version().feature() >= 25;
    }

    /** After the training edge exited: its cache is kept whole, under the name later edges look for. */
    void keepTrained(boolean exited) throws IOException {
        Path out = trainingOutput();
        Files.deleteIfExists(out.resolveSibling(out.getFileName() + ".config"));
        if (exited && Files.isRegularFile(out)) Files.move(out, cache, StandardCopyOption.ATOMIC_MOVE);
        else Files.deleteIfExists(out);
    }
}
