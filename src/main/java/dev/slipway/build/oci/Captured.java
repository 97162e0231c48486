package dev.slipway.build.oci;

import dev.slipway.build.BuildException;
import dev.slipway.build.steps.CommandRunner;
import dev.slipway.logs.Masker;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/** Runs one of the platform's tools for what it prints (a JSON answer), not for the log: its output is bounded. */
final class Captured {
    private static final int MAX_OUTPUT = 4 * 1024 * 1024;
    private static final int MAX_ERROR = 64 * 1024;

    private Captured() {}

    /** Standard output of the command; a non-zero exit is a {@link BuildException} with its masked last error line. */
    static String run(List<String> argv, Map<String, String> env, Duration timeout, Set<String> secrets) {
        Masker masker = new Masker(secrets);
        String name = argv.getFirst();
        ProcessBuilder pb = new ProcessBuilder(argv);
        pb.environment().clear();
        pb.environment().putAll(env);
        pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            throw new BuildException("cannot run " + name + ": " + e.getMessage(), e);
        }
        try {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            Thread errors = Thread.ofVirtual().start(() -> bounded(p.getErrorStream(), err, MAX_ERROR));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            bounded(p.getInputStream(), out, MAX_OUTPUT);
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new BuildException(name + " did not answer in " + CommandRunner.human(timeout));
            }
            errors.join(Duration.ofSeconds(5));
            if (p.exitValue() != 0) {
                String said = err.toString(StandardCharsets.UTF_8).lines().filter(l -> !l.isBlank())
                        .reduce((a, b) -> b).orElse("(nothing)");
                throw new BuildException(masker.mask(said.strip()), p.exitValue(), List.of());
            }
            return out.toString(StandardCharsets.UTF_8);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BuildException(name + " was interrupted");
        } finally {
            CommandRunner.killTree(p.toHandle());
        }
    }

    private static void bounded(InputStream in, ByteArrayOutputStream to, int max) {
        byte[] buf = new byte[8192];
        try (in) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                if (to.size() + n <= max) to.write(buf, 0, n);
            }
        } catch (IOException ignored) {
            // the process was killed
        }
    }
}
