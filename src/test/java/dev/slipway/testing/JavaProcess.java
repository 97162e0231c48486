package dev.slipway.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** The slipway launcher's main class run as a separate JVM, as an operator or a server would run it. */
public final class JavaProcess implements AutoCloseable {
    public record Result(int exitCode, String stdout, String stderr) {}

    private final Process process;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final Thread pump;

    private JavaProcess(Process process) {
        this.process = process;
        this.pump = Thread.ofVirtual().start(() -> pump(process));
    }

    /** Waits for the process to end and its output to be read in full; the exit code, or -1 on timeout. */
    public int waitForExit(Duration deadline) throws InterruptedException {
        if (!process.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS)) return -1;
        pump.join(Duration.ofSeconds(5));
        return process.exitValue();
    }

    private static List<String> command(String... args) {
        return command(System.getProperty("java.class.path"), args);
    }

    private static List<String> command(String classPath, String... args) {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(java));
        // a test's server or command ends within seconds to a minute, before C2 pays off: less CPU on a CPU-bound run
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.addAll(classPath.equals(System.getProperty("java.class.path")) ? StartCache.args() : List.of("-cp", classPath));
        cmd.add("dev.slipway.Main");
        cmd.addAll(List.of(args));
        return cmd;
    }

    /** Runs a command to completion. */
    public static Result run(Map<String, String> env, Path cwd, String... args) {
        return runWithInput(env, cwd, null, args);
    }

    /** Runs a command to completion with {@code stdin} (null: none) as its standard input. */
    public static Result runWithInput(Map<String, String> env, Path cwd, String stdin, String... args) {
        try {
            ProcessBuilder pb = new ProcessBuilder(command(args)).directory(cwd.toFile());
            pb.environment().keySet().removeIf(k -> k.startsWith("SLIPWAY_"));
            pb.environment().putAll(env);
            Process p = pb.start();
            if (stdin != null) p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
            p.getOutputStream().close();
            String[] captured = new String[2];
            Thread a = Thread.ofVirtual().start(() -> captured[0] = read(p.getInputStream()));
            Thread b = Thread.ofVirtual().start(() -> captured[1] = read(p.getErrorStream()));
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("slipway " + String.join(" ", args) + " did not finish in 60 s");
            }
            a.join();
            b.join();
            return new Result(p.exitValue(), captured[0], captured[1]);
        } catch (IOException | InterruptedException e) {
            throw new AssertionError("cannot run slipway: " + e, e);
        }
    }

    /**
     * Starts a long-running command (the server); output lines are collected. Its stop stops its apps unless
     * {@code SLIPWAY_STOP_APPS_WITH_SERVER} is set to false: a test's server leaves nothing running behind it.
     */
    public static JavaProcess start(Map<String, String> env, Path cwd, String... args) {
        return start(System.getProperty("java.class.path"), env, cwd, args);
    }

    /** As above, from another build of Slipway (a previous version's classes and libraries). */
    public static JavaProcess start(String classPath, Map<String, String> env, Path cwd, String... args) {
        try {
            ProcessBuilder pb = new ProcessBuilder(command(classPath, args)).directory(cwd.toFile()).redirectErrorStream(true);
            pb.environment().keySet().removeIf(k -> k.startsWith("SLIPWAY_"));
            pb.environment().put("SLIPWAY_STOP_APPS_WITH_SERVER", "true");
            // C1 only for the edge process the server starts too: it inherits the server's environment (apps and builds
            // get a cleared one), and C2's compiles were most of an edge's CPU in a test. The JVM prints one line for it.
            pb.environment().put("JAVA_TOOL_OPTIONS", "-XX:TieredStopAtLevel=1");
            pb.environment().putAll(env);
            return new JavaProcess(pb.start());
        } catch (IOException e) {
            throw new AssertionError("cannot start slipway: " + e, e);
        }
    }

    /** Waits until a line matches, or fails after the deadline (or when the process exits first). */
    public String awaitLine(Predicate<String> match, Duration deadline) {
        long end = System.nanoTime() + deadline.toNanos();
        while (System.nanoTime() < end) {
            for (String l : lines) if (match.test(l)) return l;
            if (!process.isAlive() && lines.stream().noneMatch(match)) {
                throw new AssertionError("process exited (" + process.exitValue() + ") before the expected line:\n" + output());
            }
            Thread.onSpinWait();
            try {
                Thread.sleep(20); // polling an output buffer, not waiting for work
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
        throw new AssertionError("no expected line within " + deadline + ":\n" + output());
    }

    public String output() {
        return String.join("\n", lines);
    }

    public Process process() { return process; }

    public long pid() { return process.pid(); }

    private void pump(Process p) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String l; (l = r.readLine()) != null; ) lines.add(l);
        } catch (IOException ignored) {
            // process ended
        }
    }

    private static String read(InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
