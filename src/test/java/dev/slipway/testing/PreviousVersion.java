package dev.slipway.testing;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The version before this one's newest schema change, built from git history: the release an operator goes back to
 * when an upgrade goes wrong, and the one that must run on this version's schema. Its classes and the class path of
 * its libraries are kept under {@code ~/.cache/slipway-test/previous/<commit>} (built once per machine and commit,
 * under a file lock, so parallel forks share one build).
 */
public final class PreviousVersion {
    private static final Path MIGRATIONS = Path.of("src", "main", "resources", "db", "migration");
    private static final long BUILD_MINUTES = 10;

    public record Build(String commit, String classPath) {}

    private PreviousVersion() {}

    /** Builds it once, or finds it built. Fails (never skips) when this checkout has no history to build it from. */
    public static synchronized Build get() {
        Path repo = Path.of("").toAbsolutePath();
        String newestChange = git(repo, "log", "-1", "--format=%H", "--", MIGRATIONS.toString());
        if (newestChange.isEmpty()) throw new AssertionError("no commit in this checkout's history changes " + MIGRATIONS
                + ": the previous version is built from git history (a shallow clone has none; clone with full history)");
        String commit = git(repo, "rev-parse", newestChange + "^");
        Path home = Path.of(System.getProperty("user.home"), ".cache", "slipway-test", "previous");
        Path dir = home.resolve(commit);
        try {
            Files.createDirectories(home);
            try (FileChannel lock = FileChannel.open(home.resolve(commit + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                 var held = lock.lock()) {
                Path done = dir.resolve("classpath.txt");
                if (!Files.exists(done)) build(repo, commit, dir);
                return new Build(commit, dir.resolve("target").resolve("classes") + java.io.File.pathSeparator
                        + Files.readString(done, StandardCharsets.UTF_8).strip());
            }
        } catch (IOException e) {
            throw new AssertionError("cannot build the previous version " + commit + ": " + e, e);
        }
    }

    private static void build(Path repo, String commit, Path dir) throws IOException {
        TestStore.deleteTree(dir);
        Files.createDirectories(dir);
        run(repo, List.of("bash", "-c", "git archive --format=tar \"$1\" | tar -x -C \"$2\"", "archive", commit, dir.toString()));
        List<String> mvn = new ArrayList<>(List.of("./mvnw", "-q", "-B", "compile", "dependency:build-classpath",
                "-Dmdep.outputFile=classpath.tmp", "-Dmdep.includeScope=runtime"));
        List<String> offline = new ArrayList<>(mvn);
        offline.add(2, "-o"); // its libraries are most often this version's too, in the local repository already
        if (!tryRun(dir, offline)) run(dir, mvn);
        Files.move(dir.resolve("classpath.tmp"), dir.resolve("classpath.txt"));
    }

    private static String git(Path repo, String... args) {
        List<String> cmd = new ArrayList<>(List.of("git"));
        cmd.addAll(List.of(args));
        return run(repo, cmd).strip();
    }

    private static boolean tryRun(Path dir, List<String> cmd) {
        try {
            run(dir, cmd);
            return true;
        } catch (AssertionError e) {
            return false;
        }
    }

    private static String run(Path dir, List<String> cmd) {
        try {
            ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true);
            pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
            pb.environment().keySet().removeIf(k -> k.startsWith("SLIPWAY_") || k.startsWith("MAVEN_"));
            Process p = pb.start();
            p.getOutputStream().close();
            byte[][] out = new byte[1][];
            Thread reader = Thread.ofVirtual().start(() -> {
                try {
                    out[0] = p.getInputStream().readAllBytes();
                } catch (IOException e) {
                    out[0] = new byte[0];
                }
            });
            if (!p.waitFor(BUILD_MINUTES, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new AssertionError(String.join(" ", cmd) + " did not finish within " + BUILD_MINUTES + " minutes");
            }
            reader.join();
            String text = new String(out[0], StandardCharsets.UTF_8);
            if (p.exitValue() != 0) throw new AssertionError(String.join(" ", cmd) + " failed (" + p.exitValue() + "): " + text);
            return text;
        } catch (IOException e) {
            throw new AssertionError("cannot run " + cmd + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
