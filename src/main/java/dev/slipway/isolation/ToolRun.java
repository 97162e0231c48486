package dev.slipway.isolation;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs one of the sandbox's own tools (argv, no shell) to its end; a failure is an IOException with its output. */
final class ToolRun {
    static final String PATH = "/usr/sbin:/usr/bin:/sbin:/bin";

    private ToolRun() {}

    /** @return what it printed */
    static String run(List<String> argv, String stdin) throws IOException {
        return run(Path.of(argv.getFirst()).getFileName().toString(), argv, stdin);
    }

    /**
     * nft reads the ruleset before each command, and the kernel interrupts that read when another nft changes the
     * ruleset meanwhile, as any server on the machine may: nft then fails with this, having changed nothing.
     */
    private static final String READ_INTERRUPTED = "Interrupted system call";
    private static final int ATTEMPTS = 5;

    /** As above; {@code name} names the tool in its failure (the one that matters when others start it). */
    static String run(String name, List<String> argv, String stdin) throws IOException {
        for (int attempt = 1; ; attempt++) {
            Ran ran = once(name, argv, stdin);
            if (ran.exit() == 0) return ran.output();
            if (attempt < ATTEMPTS && ran.output().contains(READ_INTERRUPTED)) continue;
            String said = ran.output().lines()
                    .filter(l -> !l.startsWith("Failed to send") && !l.isBlank()).reduce((a, b) -> a + "; " + b).orElse("");
            throw new IOException(name + " failed with exit code " + ran.exit() + (said.isEmpty() ? "" : ": " + said));
        }
    }

    private record Ran(int exit, String output) {}

    private static Ran once(String name, List<String> argv, String stdin) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true);
        pb.environment().clear();
        pb.environment().put("PATH", PATH);
        if (stdin == null) pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        Process p = pb.start();
        if (stdin != null) {
            try (OutputStream in = p.getOutputStream()) {
                in.write(stdin.getBytes(StandardCharsets.UTF_8));
            }
        }
        byte[] out = p.getInputStream().readAllBytes();
        try {
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(name + " did not finish in 10 s");
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException(name + " was interrupted");
        }
        return new Ran(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }
}
