package dev.slipway.build.oci;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.build.BuildException;
import dev.slipway.build.ImageRun;
import dev.slipway.build.steps.CommandRunner;
import dev.slipway.core.Json;
import dev.slipway.isolation.ImageRoot;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An image of an OCI layout unpacked ({@code umoci}) into an artifact's folder, as the server: its root file system
 * ready to be a cell's read-only {@code /} ({@link ImageRoot#prepare}), and how it runs. The layers are read first, so
 * an image whose files hold more than the limit is refused before a byte of it is written.
 */
public final class Unpack {
    private final CommandRunner runner;
    private final Duration timeout;

    public Unpack(Clock clock, Duration timeout) {
        this.runner = new CommandRunner(clock);
        this.timeout = timeout;
    }

    /** What was unpacked: how it runs, its start command (Entrypoint then Cmd), and how many bytes its files hold. */
    public record Unpacked(ImageRun run, List<String> command, long bytes) {}

    /**
     * @param reference what {@link ImageRun#reference()} records (null for an image built here)
     * @param env       environment additions of the umoci call (a deployment's marker)
     */
    public Unpacked unpack(Path layout, String tag, Path root, long maxBytes, String reference, Map<String, String> env,
                           Set<String> secrets, LogSink log) throws IOException {
        long bytes = LayerScan.unpackedBytes(layout, tag, maxBytes);
        log.log(Level.INFO, "Unpacking " + megabytes(bytes));
        Map<String, String> all = new LinkedHashMap<>(CommandRunner.baseEnvironment());
        all.putAll(env);
        // rootless: files are the server's, no device node is made, whatever the layers say
        runner.run(new CommandRunner.Command(List.of("umoci", "unpack", "--rootless", "--image", layout + ":" + tag, root.toString()),
                layout.getParent(), all, timeout, secrets), log);
        JsonNode process = Json.MAPPER.readTree(root.resolve("config.json").toFile()).path("process");
        Map<String, String> imageEnv = new LinkedHashMap<>();
        for (JsonNode pair : process.path("env")) {
            String v = pair.asText("");
            int eq = v.indexOf('=');
            if (eq > 0) imageEnv.put(v.substring(0, eq), v.substring(eq + 1));
        }
        ImageRun run = new ImageRun(reference, imageEnv, process.path("cwd").asText("/"));
        List<String> command = new ArrayList<>();
        process.path("args").forEach(a -> command.add(a.asText()));
        if (command.isEmpty()) throw new BuildException("the image names no command to run (no Entrypoint and no Cmd)");
        Path rootfs = ImageRun.rootfs(root);
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(rootfs, PosixFilePermissions.fromString("rwxr-xr-x"));
        ReadableRoot.apply(rootfs);
        ImageRoot.prepare(rootfs, List.of(Path.of(run.workDir())));
        log.log(Level.INFO, "Start command: " + String.join(" ", command) + " in " + run.workDir());
        return new Unpacked(run, command, bytes);
    }

    static String megabytes(long bytes) {
        return bytes < 1 << 20 ? (bytes >> 10) + " KB" : (bytes >> 20) + " MB";
    }
}
