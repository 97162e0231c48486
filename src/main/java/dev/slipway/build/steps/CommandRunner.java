package dev.slipway.build.steps;

import dev.slipway.build.BuildException;
import dev.slipway.build.BuildSettings;
import dev.slipway.isolation.Cell;
import dev.slipway.isolation.Confined;
import dev.slipway.isolation.Confinement;
import dev.slipway.isolation.Limits;
import dev.slipway.isolation.Unconfined;
import dev.slipway.net.DatabaseEndpoint;
import dev.slipway.logs.Masker;

import dev.slipway.logs.HeldLine;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one external command from an argv list (never a shell string) and streams every line of its
 * output to a {@link LogSink} as it comes, masked. A non-zero exit or a timeout is a {@link BuildException};
 * a timeout (or an interrupt) kills the command's whole process tree.
 */
public final class CommandRunner {
    private static final Logger LOG = LoggerFactory.getLogger(CommandRunner.class);
    public static final Duration DEFAULT_TIMEOUT = BuildSettings.DEFAULT_COMMAND_TIMEOUT;
    /** Environment entry {@code SLIPWAY_BUILD_OF=<deployment id>} of every build command: a cancel finds them by it. */
    public static final String BUILD_MARKER = "SLIPWAY_BUILD_OF";
    static final int LAST_LINES = 20;
    static final int MAX_LINE = 8192;
    private static final Pattern ANSI = Pattern.compile("\u001B\\[[0-9;?]*[ -/]*[@-~]|\u001B][^\u0007]*\u0007");
    /** How long to wait for the output to drain after the command ended (a background child may hold it open). */
    private static final Duration DRAIN = Duration.ofSeconds(5);

    /**
     * @param env     the complete environment of the command (start from {@link #baseEnvironment()})
     * @param secrets values to mask in every logged line and in error messages
     * @param attempt true when the caller handles a failure (tries something else): then no line of it,
     *                nor the failure itself, is logged above {@code warning}
     */
    public record Command(List<String> argv, Path workDir, Map<String, String> env, Duration timeout, Set<String> secrets,
                          boolean attempt, Confine confine) {
        public Command {
            if (argv.isEmpty()) throw new IllegalArgumentException("empty argv");
            argv = List.copyOf(argv);
            env = Map.copyOf(env);
            secrets = Set.copyOf(secrets);
        }

        public Command(List<String> argv, Path workDir, Map<String, String> env, Duration timeout, Set<String> secrets) {
            this(argv, workDir, env, timeout, secrets, false, null);
        }

        public static Command of(List<String> argv, Path workDir, Map<String, String> env) {
            return new Command(argv, workDir, env, DEFAULT_TIMEOUT, Set.of(), false, null);
        }

        public Command withTimeout(Duration t) { return new Command(argv, workDir, env, t, secrets, attempt, confine); }

        public Command withSecrets(Set<String> s) { return new Command(argv, workDir, env, timeout, s, attempt, confine); }

        public Command asAttempt() { return new Command(argv, workDir, env, timeout, secrets, true, confine); }

        /** Runs it as a build step of this project, in its sandbox when the server has one. */
        public Command confinedTo(Confine c) { return new Command(argv, workDir, env, timeout, secrets, attempt, c); }
    }

    /**
     * Whose build step a command is. Under the sandbox it sees its working directory (the workspace, or the
     * artifact while its venv is made) and the project's caches writable, and nothing else of the data dir.
     *
     * @param name a name unique among running steps (the build's artifact id and a step number)
     * @param readOnly more host paths the step sees read-only (a Node build, a package manager)
     * @param database the project's database as the platform recorded it, or null: the one its network may lead to
     * @param hidden   for a step that builds an image (buildah), the folder it must not see (the data dir): it then
     *                 runs as {@link Confinement#startImageBuild} starts it; null for every other step
     */
    public record Confine(String name, String projectId, Path cacheDir, Limits limits, List<Path> readOnly,
                          DatabaseEndpoint database, Path hidden) {
        public Confine {
            readOnly = List.copyOf(readOnly);
        }

        public Confine(String name, String projectId, Path cacheDir, Limits limits, List<Path> readOnly,
                       DatabaseEndpoint database) {
            this(name, projectId, cacheDir, limits, readOnly, database, null);
        }

        public Confine(String name, String projectId, Path cacheDir, Limits limits, DatabaseEndpoint database) {
            this(name, projectId, cacheDir, limits, List.of(), database);
        }

        public Confine(String name, String projectId, Path cacheDir, Limits limits) {
            this(name, projectId, cacheDir, limits, null);
        }

        public Confine withReadOnly(List<Path> paths) {
            return new Confine(name, projectId, cacheDir, limits, paths, database, hidden);
        }

        public Confine withoutDatabase() {
            return new Confine(name, projectId, cacheDir, limits, readOnly, null, hidden);
        }

        /** A step that builds an image, with {@code dataDir} out of its sight. */
        public Confine buildingImages(Path dataDir) {
            return new Confine(name, projectId, cacheDir, limits, readOnly, database, dataDir);
        }
    }

    public record Result(int exitCode, Duration elapsed) {}

    private final Clock clock;
    private final Confinement confinement;
    private final AtomicLong steps = new AtomicLong();

    public CommandRunner(Clock clock) {
        this(clock, new Unconfined());
    }

    public CommandRunner(Clock clock, Confinement confinement) {
        this.clock = clock;
        this.confinement = confinement;
    }

    public Confinement confinement() {
        return confinement;
    }

    /**
     * The clean environment every command starts from: PATH, HOME and LANG of this server (the JVM's
     * own environment is not passed on, so the server's secrets never reach an app).
     */
    public static Map<String, String> baseEnvironment() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", System.getenv().getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin"));
        env.put("HOME", System.getenv().getOrDefault("HOME", System.getProperty("user.home")));
        env.put("LANG", System.getenv().getOrDefault("LANG", "C.UTF-8"));
        return env;
    }

    /** Runs the command to its end; throws {@link BuildException} unless it exits 0. */
    public Result run(Command command, LogSink target) {
        LogSink log = command.attempt() ? atMostWarning(target) : target;
        Masker masker = new Masker(command.secrets());
        String display = masker.mask(display(command.argv(), command.workDir()));
        String running = "Running " + display;
        Instant started = clock.instant();
        Confined cell;
        try {
            cell = start(command);
        } catch (IOException e) {
            log.log(Level.INFO, running);
            throw new BuildException("cannot run " + display + ": " + masker.mask(String.valueOf(e.getMessage())), e);
        }
        try {
            return run(command, cell, log, masker, display, running, started);
        } finally {
            cell.release();
        }
    }

    private Confined start(Command command) throws IOException {
        Confine c = command.confine();
        if (c == null) return new Unconfined().start(new Cell("cmd", "none", command.argv(), command.workDir(),
                command.env(), List.of(), List.of(), List.of(), new Limits(0, 0, 0, 0), 0, false));
        List<Path> writable = new ArrayList<>(List.of(command.workDir()));
        if (!command.workDir().startsWith(c.cacheDir())) writable.add(c.cacheDir());
        Cell cell = new Cell(c.name() + "-" + steps.incrementAndGet(), c.projectId(), command.argv(),
                command.workDir(), command.env(), c.readOnly(), writable, List.of(), c.limits(), 0, false, c.database(), true);
        return c.hidden() != null ? confinement.startImageBuild(cell, c.hidden()) : confinement.start(cell);
    }

    private Result run(Command command, Confined cell, LogSink log, Masker masker, String display, String running,
                       Instant started) {
        Process process = cell.process();
        // logged once the command runs, so the entry is stored while the command starts up rather than before
        // it; its output is read only after this, so the entry still comes first
        try {
            log.log(Level.INFO, running);
        } catch (RuntimeException e) {
            killTree(process.toHandle());
            throw e;
        }
        FailureCause cause = new FailureCause();
        LastLines last = new LastLines(LAST_LINES, cause);
        try {
            process.getOutputStream().close(); // no stdin: a command that prompts gets EOF instead of hanging the build
        } catch (IOException ignored) {
            // the command already closed its end
        }
        Thread out = pump(process.getInputStream(), false, masker, last, log);
        Thread err = pump(process.getErrorStream(), true, masker, last, log);
        boolean finished;
        try {
            finished = process.waitFor(command.timeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            int killed = killTree(process.toHandle());
            Thread.currentThread().interrupt();
            throw new BuildException(display + " was interrupted; stopped it" + children(killed));
        }
        if (!finished) {
            int killed = killTree(process.toHandle());
            join(out, err);
            String message = display + " timed out after " + human(command.timeout()) + "; stopped it" + children(killed);
            log.log(Level.ERROR, message);
            throw new BuildException(message, null, last.lines());
        }
        join(out, err);
        Duration elapsed = Duration.between(started, clock.instant());
        int code = process.exitValue();
        if (code != 0) {
            List<String> tail = last.lines();
            String why = cell.outOfMemory() ? " (out of memory: the build's limit is " + cell.limits().memoryLabel()
                    + ", SLIPWAY_BUILD_MEMORY_MB)" : "";
            log.log(Level.ERROR, display + " failed with exit code " + code + why
                    + (tail.isEmpty() ? " and printed nothing" : "; its last " + tail.size() + " lines:"));
            tail.forEach(line -> log.log(Level.ERROR, "  " + line));
            List<String> causes = cause.lines();
            if (!causes.isEmpty()) log.log(Level.ERROR, "The cause, as it printed it: " + String.join(" | ", causes));
            throw new BuildException(display + " failed with exit code " + code + why
                    + (causes.isEmpty() ? "" : ": " + String.join(" | ", causes)), code, tail);
        }
        return new Result(code, elapsed);
    }

    private static LogSink atMostWarning(LogSink log) {
        return (level, message) -> log.log(level == Level.ERROR ? Level.WARNING : level, message);
    }

    /**
     * Kills a process and every descendant. Descendants are listed before anything is killed, because
     * an orphan is re-parented away and no longer shows up as a descendant; the sweep repeats for
     * children started while it ran.
     *
     * @return how many descendants were killed
     */
    public static int killTree(ProcessHandle root) {
        Set<ProcessHandle> killed = new LinkedHashSet<>();
        for (int round = 0; round < 10; round++) {
            List<ProcessHandle> targets = new ArrayList<>();
            if (root.isAlive()) targets.add(root);
            root.descendants().forEach(targets::add);
            for (ProcessHandle h : killed) h.descendants().forEach(targets::add);
            targets.removeIf(h -> !h.isAlive() || killed.contains(h));
            if (targets.isEmpty()) break;
            targets.forEach(ProcessHandle::destroyForcibly);
            killed.addAll(targets);
            for (ProcessHandle h : targets) {
                try {
                    h.onExit().get(2, TimeUnit.SECONDS);
                } catch (Exception ignored) {
                    // still reported alive (a zombie not yet reaped): the next round checks again
                }
            }
        }
        killed.remove(root);
        return killed.size();
    }

    private static Thread pump(InputStream stream, boolean stderr, Masker masker, LastLines last, LogSink log) {
        return Thread.ofPlatform().daemon().name(stderr ? "command-stderr" : "command-stdout").start(() -> {
            // each line waits for the next (briefly), so that a secret spanning the two is masked in both
            HeldLine held = new HeldLine(masker, clean -> record(clean, stderr, last, log));
            try (Reader reader = new InputStreamReader(stream, StandardCharsets.UTF_8)) {
                StringBuilder line = new StringBuilder();
                char[] buf = new char[4096];
                int n;
                while ((n = reader.read(buf)) >= 0) {
                    for (int i = 0; i < n; i++) {
                        char c = buf[i];
                        if (c == '\n') {
                            emit(line, held);
                        } else if (line.length() >= MAX_LINE) {
                            // cut where no secret is split; what could still be one goes on with the next chunk
                            int cut = masker.safeCut(line.toString());
                            String rest = line.substring(cut == 0 ? line.length() : cut);
                            line.setLength(line.length() - rest.length());
                            emit(line, held);
                            line.append(rest).append(c);
                        } else {
                            line.append(c);
                        }
                    }
                }
                if (!line.isEmpty()) emit(line, held);
            } catch (IOException ignored) {
                // the stream closed under us: the process was killed
            } finally {
                held.flush();
            }
        });
    }

    private static void emit(StringBuilder raw, HeldLine held) {
        String text = raw.toString();
        raw.setLength(0);
        // a progress bar rewrites its line with \r: keep what was finally shown
        int cr = text.stripTrailing().lastIndexOf('\r');
        if (cr >= 0) text = text.substring(cr + 1);
        String clean = ANSI.matcher(text).replaceAll("").stripTrailing();
        if (!clean.isBlank()) held.add(clean);
    }

    /** A masked line into the last lines and the log. */
    private static void record(String clean, boolean stderr, LastLines last, LogSink log) {
        if (clean.isBlank()) return;
        last.add(clean, stderr);
        try {
            log.log(stderr ? OutputLevels.stderr(clean) : OutputLevels.stdout(clean), clean);
        } catch (RuntimeException e) {
            // the store is unreachable for a moment: lose this line, but keep draining the pipe, or
            // the command would block on a full pipe and the build hang until its timeout
            LOG.warn("a build output line could not be stored: {}", e.toString());
        }
    }

    private static void join(Thread... readers) {
        long deadline = System.nanoTime() + DRAIN.toNanos();
        for (Thread t : readers) {
            try {
                t.join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** The command as a person would type it; a program inside the work dir is shown relative to it. */
    public static String display(List<String> argv, Path workDir) {
        List<String> shown = new ArrayList<>(argv);
        Path program = Path.of(argv.get(0));
        Path dir = workDir.toAbsolutePath().normalize();
        if (program.isAbsolute() && program.normalize().startsWith(dir)) shown.set(0, dir.relativize(program.normalize()).toString());
        return shown.stream().map(a -> a.isEmpty() || a.chars().anyMatch(Character::isWhitespace) ? "'" + a + "'" : a)
                .collect(Collectors.joining(" "));
    }

    public static String human(Duration d) {
        if (d.toMillis() < 60_000) return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
        return d.toMinutes() + " min" + (d.toSecondsPart() == 0 ? "" : " " + d.toSecondsPart() + " s");
    }

    private static String children(int killed) {
        return killed == 0 ? "" : " and " + killed + " child process" + (killed == 1 ? "" : "es");
    }

    /**
     * The newest lines of both streams, for the failure report. The two pipes are read by separate threads,
     * so a late burst of stdout can arrive after the stderr line that explains the failure; the newest
     * stderr lines are therefore always kept.
     */
    private static final class LastLines {
        private record Line(long seq, String text) {}

        private final int capacity;
        private final ArrayDeque<Line> out = new ArrayDeque<>();
        private final ArrayDeque<Line> err = new ArrayDeque<>();
        private long seq;

        private final FailureCause cause;

        LastLines(int capacity, FailureCause cause) {
            this.capacity = capacity;
            this.cause = cause;
        }

        synchronized void add(String line, boolean stderr) {
            cause.offer(line);
            ArrayDeque<Line> q = stderr ? err : out;
            if (q.size() == capacity) q.removeFirst();
            q.addLast(new Line(seq++, line));
        }

        synchronized List<String> lines() {
            List<Line> all = new ArrayList<>(out);
            all.addAll(err);
            all.sort(Comparator.comparingLong(Line::seq));
            List<Line> errTail = new ArrayList<>(err).subList(Math.max(0, err.size() - capacity / 2), err.size());
            List<Line> keep = new ArrayList<>(all.subList(Math.max(0, all.size() - capacity), all.size()));
            for (Line l : errTail) if (!keep.contains(l)) keep.add(l);
            keep.sort(Comparator.comparingLong(Line::seq));
            for (int i = 0; keep.size() > capacity && i < keep.size(); ) {
                if (errTail.contains(keep.get(i))) i++;
                else keep.remove(i);
            }
            return keep.stream().map(Line::text).toList();
        }
    }
}
