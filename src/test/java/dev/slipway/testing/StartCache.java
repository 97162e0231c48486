package dev.slipway.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;

/**
 * What the servers and commands the tests start as JVMs of their own run from: this build's classes as a jar,
 * with the AOT cache of a server's start made by a training run (JDK 25 and later), as the launcher runs the
 * server; the training run's edge process makes the cache the servers' edge processes start from. About a
 * quarter less CPU for each of the run's many server starts. An AOT cache holds no class from a folder, hence the
 * jar. Made once per build of the classes, under a file lock, so the test JVMs share one; without a cache (an older
 * JDK, a failed training run) they run from the class path as it is.
 */
final class StartCache {
    private static final Path DIR = Path.of("target", "start-cache");
    private static List<String> args;

    private StartCache() {}

    /** The JVM options and class path of a JVM that runs this build's {@code dev.slipway.Main}. */
    static synchronized List<String> args() {
        if (args == null) args = make();
        return args;
    }

    private static List<String> make() {
        String classPath = System.getProperty("java.class.path");
        List<String> fallback = List.of("-cp", classPath);
        Path classes = Path.of("target", "classes").toAbsolutePath();
        List<String> entries = List.of(classPath.split(File.pathSeparator));
        if (Runtime.version().feature() < 25 || !entries.contains(classes.toString())) return fallback;
        try {
            Files.createDirectories(DIR);
            String key = key(classes, entries);
            Path jar = DIR.resolve(key + ".jar").toAbsolutePath();
            Path cache = DIR.resolve(key + ".aot").toAbsolutePath();
            Path failed = DIR.resolve(key + ".failed");
            // the build's jar first: an edge process's cache goes beside it (dev.slipway.edge.EdgeJar)
            List<String> cp = new ArrayList<>(List.of(jar.toString()));
            for (String e : entries) {
                if (e.endsWith(".jar")) cp.add(e); // the test classes stay out: a server needs none of them
            }
            String joined = String.join(File.pathSeparator, cp);
            try (FileChannel lock = FileChannel.open(DIR.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                 var held = lock.lock()) {
                if (!Files.exists(cache) && !Files.exists(failed)) {
                    if (!Files.exists(jar)) makeJar(classes, jar);
                    if (!train(joined, cache)) Files.writeString(failed, "the training run failed\n");
                }
            }
            if (!Files.exists(cache)) return fallback;
            return List.of("-XX:AOTCache=" + cache, "-Xlog:aot*=off", "-Xlog:cds*=off", "-cp", joined);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make the test servers' start cache in " + DIR, e);
        }
    }

    /** The classes' paths, sizes and times, and the libraries: a new build of either makes a new cache. */
    private static String key(Path classes, List<String> entries) throws IOException {
        MessageDigest sha = sha256();
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path f : (Iterable<Path>) files.sorted()::iterator) {
                BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class);
                sha.update((classes.relativize(f) + " " + a.size() + " " + a.lastModifiedTime().toMillis() + "\n").getBytes());
            }
        }
        sha.update(String.join(File.pathSeparator, entries).getBytes());
        sha.update(Runtime.version().toString().getBytes());
        sha.update("the build's jar first".getBytes()); // the class path's order the caches were made with
        return HexFormat.of().formatHex(sha.digest(), 0, 8);
    }

    private static void makeJar(Path classes, Path jar) throws IOException {
        Path tmp = jar.resolveSibling(jar.getFileName() + ".tmp");
        ToolProvider tool = ToolProvider.findFirst("jar").orElseThrow(() -> new IOException("this JDK has no jar tool"));
        int code = tool.run(System.out, System.err, "--create", "--file", tmp.toString(), "-C", classes.toString(), ".");
        if (code != 0) throw new IOException("jar exited with " + code);
        Files.move(tmp, jar, StandardCopyOption.ATOMIC_MOVE);
    }

    /** A server on a throwaway store starts, answers a few requests and stops (the launcher's training run). */
    private static boolean train(String classPath, Path cache) throws IOException {
        Path data = Files.createTempDirectory("slipway-training-");
        Path tmp = cache.resolveSibling(cache.getFileName() + ".tmp");
        try {
            String java = ProcessHandle.current().info().command().orElse("java");
            ProcessBuilder pb = new ProcessBuilder(java, "-XX:TieredStopAtLevel=1", "-XX:AOTCacheOutput=" + tmp, "-Xlog:aot*=off",
                    "-Xlog:cds*=off", "-cp", classPath, "dev.slipway.Main", "server", "--api-port", "0", "--apps-port", "0")
                    .redirectErrorStream(true).redirectOutput(cache.resolveSibling(cache.getFileName() + ".log").toFile());
            pb.environment().keySet().removeIf(k -> k.startsWith("SLIPWAY_"));
            pb.environment().put("SLIPWAY_TRAINING_RUN", "1");
            pb.environment().put("SLIPWAY_DATA_DIR", data.toString());
            Process p = pb.start();
            if (!p.waitFor(3, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                return false;
            }
            if (p.exitValue() != 0 || !Files.exists(tmp)) return false;
            Files.move(tmp, cache, StandardCopyOption.ATOMIC_MOVE);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            Files.deleteIfExists(tmp);
            TestStore.deleteTree(data);
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
