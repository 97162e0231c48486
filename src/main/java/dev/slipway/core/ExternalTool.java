package dev.slipway.core;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs a program of the machine (pg_dump, psql, mariadb-dump…) to its end. Secrets go in {@code env}, never in the
 * arguments (other users see those in the process list); a failure says which program, its exit code and the end of
 * its output; a program that is not installed says so; one that runs past {@link #LIMIT} is stopped and fails, so that a
 * hung dump fails a scheduled backup instead of stopping it without a word.
 */
public final class ExternalTool {
    private static final int KEPT_OUTPUT = 2000;
    static final Duration LIMIT = Duration.ofHours(2);

    private ExternalTool() {}

    /** Runs {@code command}; {@code stdin}: a file for its standard input, or null. */
    public static void run(List<String> command, Map<String, String> env, Path stdin, String installHint) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().putAll(env);
        pb.redirectInput(stdin == null ? ProcessBuilder.Redirect.from(new File("/dev/null")) : ProcessBuilder.Redirect.from(stdin.toFile()));
        Process process;
        try {
            process = pb.start();
        } catch (IOException e) {
            throw new IOException(command.getFirst() + " is not installed (" + installHint + "): " + e.getMessage(), e);
        }
        String[] output = {""};
        Thread reader = Thread.ofVirtual().start(() -> {
            try (InputStream in = process.getInputStream()) {
                output[0] = new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
            } catch (IOException ignored) {
                // the process was stopped: its exit says what happened
            }
        });
        try {
            if (!process.waitFor(LIMIT.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new IOException(command.getFirst() + " did not finish in " + LIMIT.toHours() + " h and was stopped");
            }
            reader.join();
            int code = process.exitValue();
            if (code != 0) {
                String all = output[0];
                String tail = all.length() <= KEPT_OUTPUT ? all : "…" + all.substring(all.length() - KEPT_OUTPUT);
                throw new IOException(command.getFirst() + " failed (exit " + code + "): " + tail);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException(command.getFirst() + " was interrupted", e);
        }
    }
}
