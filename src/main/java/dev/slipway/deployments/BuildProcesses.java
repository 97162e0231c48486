package dev.slipway.deployments;

import dev.slipway.build.steps.CommandRunner;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The processes of a deployment's build, found by the marker in their environment (every build command
 * and whatever it spawns inherits it), read from {@code /proc} (Linux; elsewhere there are none to find).
 */
final class BuildProcesses {
    /** Environment entry {@code SLIPWAY_BUILD_OF=<deployment id>} of every build command. */
    static final String MARKER = CommandRunner.BUILD_MARKER;
    private static final Path PROC = Path.of("/proc");

    private BuildProcesses() {}

    /** SIGKILLs every live process of the deployment's build; returns how many. */
    static int kill(String deploymentId) {
        byte[] needle = (MARKER + "=" + deploymentId).getBytes(StandardCharsets.UTF_8);
        long self = ProcessHandle.current().pid();
        int killed = 0;
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(PROC)) {
            for (Path p : dir) {
                String name = p.getFileName().toString();
                if (name.isEmpty() || !name.chars().allMatch(Character::isDigit)) continue;
                long pid = Long.parseLong(name);
                if (pid == self || !hasEntry(p.resolve("environ"), needle)) continue;
                var handle = ProcessHandle.of(pid);
                if (handle.isPresent() && handle.get().isAlive() && handle.get().destroyForcibly()) killed++;
            }
        } catch (IOException | SecurityException e) {
            return killed; // no /proc: nothing to find
        }
        return killed;
    }

    private static boolean hasEntry(Path environ, byte[] needle) {
        byte[] env;
        try {
            env = Files.readAllBytes(environ);
        } catch (IOException | SecurityException e) {
            return false; // gone, or another user's
        }
        int start = 0;
        for (int i = 0; i <= env.length; i++) {
            if (i == env.length || env[i] == 0) {
                if (i - start == needle.length && Arrays.equals(env, start, i, needle, 0, needle.length)) return true;
                start = i + 1;
            }
        }
        return false;
    }
}
