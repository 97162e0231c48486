package dev.slipway.runtime.local;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/**
 * Process groups on Linux, read from {@code /proc} and signalled with {@code kill -SIG -- -pgid}
 * (argv, no shell). Every app runs in its own session, so its group holds the app and whatever it spawned.
 */
final class ProcessGroups {
    private static final Path PROC = Path.of("/proc");
    private static final Duration POLL = Duration.ofMillis(25);
    private static final Duration AFTER_KILL = Duration.ofSeconds(5);
    private static final long OWN_PGID = pgidOf(ProcessHandle.current().pid()).orElse(-1);

    private ProcessGroups() {}

    /** The process group of a live, non-zombie process. */
    static OptionalLong pgidOf(long pid) {
        return stat(pid).filter(s -> s.alive()).map(s -> OptionalLong.of(s.pgrp())).orElse(OptionalLong.empty());
    }

    /** Waits (briefly) until the process leads its own group, or has exited. False when neither happens in 5 s. */
    static boolean awaitLeader(Process p) {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (System.nanoTime() - deadline < 0) {
            OptionalLong pgid = pgidOf(p.pid());
            if (pgid.isEmpty() || pgid.getAsLong() == p.pid() || !p.isAlive()) return true;
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return false;
    }

    /** Live (non-zombie) processes of the group. */
    static List<Long> members(long pgid) {
        List<Long> out = new ArrayList<>();
        for (long pid : pids()) {
            stat(pid).ifPresent(s -> {
                if (s.pgrp() == pgid && s.alive()) out.add(pid);
            });
        }
        return out;
    }

    /** Every live (non-zombie) process by its group, from one pass over {@code /proc}. */
    static Map<Long, List<Long>> byGroup() {
        Map<Long, List<Long>> out = new HashMap<>();
        for (long pid : pids()) {
            stat(pid).ifPresent(s -> {
                if (s.alive()) out.computeIfAbsent(s.pgrp(), g -> new ArrayList<>()).add(pid);
            });
        }
        return out;
    }

    /** Live processes whose environment holds {@code name=value} (readable only for our own user's processes). */
    static List<Long> withEnvironment(String name, String value) {
        byte[] needle = (name + "=" + value).getBytes(StandardCharsets.UTF_8);
        List<Long> out = new ArrayList<>();
        for (long pid : pids()) {
            if (pid == ProcessHandle.current().pid()) continue;
            if (hasEnvironment(pid, needle) && stat(pid).map(Stat::alive).orElse(false)) out.add(pid);
        }
        return out;
    }

    static boolean hasEnvironment(long pid, String name, String value) {
        return hasEnvironment(pid, (name + "=" + value).getBytes(StandardCharsets.UTF_8));
    }

    /** The value of {@code name} in the process's environment; empty when unset or not ours to read. */
    static java.util.Optional<String> environment(long pid, String name) {
        byte[] env = environ(pid);
        String prefix = name + "=";
        for (String entry : new String(env, StandardCharsets.UTF_8).split("\0")) {
            if (entry.startsWith(prefix)) return java.util.Optional.of(entry.substring(prefix.length()));
        }
        return java.util.Optional.empty();
    }

    private static byte[] environ(long pid) {
        try {
            return Files.readAllBytes(PROC.resolve(Long.toString(pid)).resolve("environ"));
        } catch (IOException | SecurityException e) {
            return new byte[0];
        }
    }

    private static boolean hasEnvironment(long pid, byte[] needle) {
        byte[] env = environ(pid);
        // entries are NUL-terminated; match a whole entry
        int start = 0;
        for (int i = 0; i <= env.length; i++) {
            if (i == env.length || env[i] == 0) {
                if (i - start == needle.length && Arrays.equals(env, start, i, needle, 0, needle.length)) return true;
                start = i + 1;
            }
        }
        return false;
    }

    /**
     * SIGTERM to the group, SIGKILL to what is left after {@code grace}; returns once the group is empty
     * (or {@link #AFTER_KILL} after the SIGKILL, for a process stuck in the kernel).
     *
     * @return true when the group is gone
     */
    static boolean terminate(long pgid, Duration grace) {
        if (!signallable(pgid)) return true;
        if (members(pgid).isEmpty()) return true;
        if (!grace.isZero()) {
            signal(pgid, "TERM");
            if (awaitEmpty(pgid, grace)) return true;
        }
        signal(pgid, "KILL");
        return awaitEmpty(pgid, AFTER_KILL);
    }

    static boolean awaitEmpty(long pgid, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (members(pgid).isEmpty()) return true;
            if (System.nanoTime() - deadline >= 0) return false;
            try {
                Thread.sleep(POLL);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return members(pgid).isEmpty();
            }
        }
    }

    static void signal(long pgid, String signal) {
        if (!signallable(pgid)) return;
        try {
            Process kill = new ProcessBuilder(Executables.KILL, "-" + signal, "--", "-" + pgid)
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!kill.waitFor(5, TimeUnit.SECONDS)) kill.destroyForcibly();
        } catch (IOException e) {
            throw new IllegalStateException("cannot run kill: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Never signal init, a kernel group or the server's own group. */
    private static boolean signallable(long pgid) {
        return pgid > 1 && pgid != OWN_PGID;
    }

    private static List<Long> pids() {
        List<Long> out = new ArrayList<>();
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(PROC)) {
            for (Path p : dir) {
                String name = p.getFileName().toString();
                if (!name.isEmpty() && name.chars().allMatch(Character::isDigit)) out.add(Long.parseLong(name));
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list /proc: " + e.getMessage(), e);
        }
        return out;
    }

    private record Stat(char state, long pgrp) {
        boolean alive() {
            return state != 'Z' && state != 'X' && state != 'x';
        }
    }

    private static Optional<Stat> stat(long pid) {
        String s;
        try {
            s = Files.readString(PROC.resolve(Long.toString(pid)).resolve("stat"));
        } catch (IOException | SecurityException e) {
            return Optional.empty();
        }
        // "pid (comm) state ppid pgrp ..." — comm may contain spaces and parentheses
        int close = s.lastIndexOf(')');
        if (close < 0) return Optional.empty();
        String[] f = s.substring(close + 2).split(" ");
        if (f.length < 3) return Optional.empty();
        return Optional.of(new Stat(f[0].charAt(0), Long.parseLong(f[2])));
    }
}
