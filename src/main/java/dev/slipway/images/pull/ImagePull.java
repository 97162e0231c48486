package dev.slipway.images.pull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.build.Artifact;
import dev.slipway.build.ArtifactStore;
import dev.slipway.build.BuildException;
import dev.slipway.build.ImageRun;
import dev.slipway.build.Trees;
import dev.slipway.build.steps.CommandRunner;
import dev.slipway.core.Ids;
import dev.slipway.core.Json;
import dev.slipway.images.ImageSettings;
import dev.slipway.isolation.ImageRoot;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Makes a prebuilt OCI image an artifact: resolves its tag to a digest once, copies that digest ({@code skopeo}) and
 * unpacks it ({@code umoci}) into the artifact's directory, and records how it runs (its {@code Entrypoint} and
 * {@code Cmd}, {@code Env}, {@code WorkingDir}). The platform does this as itself, on the host, outside every
 * tenant's cell: the registry may be on the host's loopback, which no app reaches. Nothing of the operator's own
 * registry logins is used, only the project's ({@link RegistryLogin}).
 */
public final class ImagePull {
    private static final String TAG = "image";
    /** Accepts any image: which images a project may run is the project's choice; the digest pins the bytes. */
    private static final String POLICY = "{\"default\":[{\"type\":\"insecureAcceptAnything\"}]}";
    private static final String ARCHITECTURE = switch (System.getProperty("os.arch")) {
        case "aarch64" -> "arm64";
        case "amd64", "x86_64" -> "amd64";
        default -> System.getProperty("os.arch");
    };

    private final ImageSettings settings;
    private final ArtifactStore artifacts;
    private final Path artifactsDir;
    private final Path scratch;
    private final CommandRunner runner;
    private final Duration timeout;
    private final Clock clock;
    private final Ids ids;

    /**
     * @param scratch where images are copied before they are unpacked (each pull its own folder, deleted after)
     * @param timeout the longest one step (inspect, copy, unpack) may take: the build command's limit
     */
    public ImagePull(ImageSettings settings, ArtifactStore artifacts, Path artifactsDir, Path scratch, Duration timeout,
                     Clock clock) {
        this.settings = settings;
        this.artifacts = artifacts;
        this.artifactsDir = artifactsDir;
        this.scratch = scratch;
        this.runner = new CommandRunner(clock);
        this.timeout = timeout;
        this.clock = clock;
        this.ids = new Ids(clock);
    }

    /**
     * @param env     the steps' environment additions (the deployment's marker, so a cancel finds them)
     * @param secrets values masked in every line and message (the project's secrets, its registry password)
     */
    public record Request(String projectId, ImageName image, RegistryLogin login, Map<String, String> env, Set<String> secrets) {}

    /** The image's digest now, checked for this machine's platform and the size limit before anything is copied. */
    public ImageName resolve(Request r, LogSink log) {
        Path dir = workDir();
        try {
            Inspection seen = Inspection.parse(inspect(r, dir, r.image(), false));
            if (!seen.os().isEmpty() && !seen.os().equals("linux")) {
                throw new BuildException("the image " + r.image() + " is for " + seen.os() + ", not linux");
            }
            if (!seen.architecture().isEmpty() && !seen.architecture().equals(ARCHITECTURE)) {
                throw new BuildException("the image " + r.image() + " is for " + seen.architecture() + "; this machine runs "
                        + ARCHITECTURE);
            }
            ImageName resolved = r.image().at(r.image().pinned() ? r.image().digest() : seen.digest());
            long bytes = compressedBytes(r, dir, resolved);
            if (bytes > settings.maxBytes()) {
                throw new BuildException("the image is " + (bytes >> 20) + " MB compressed, more than the limit of "
                        + (settings.maxBytes() >> 20) + " MB (SLIPWAY_IMAGE_MAX_MB)");
            }
            log.log(Level.INFO, "Image " + r.image() + (r.image().pinned() ? "" : " is " + resolved)
                    + " (" + megabytes(bytes) + " compressed)");
            return resolved;
        } catch (BuildException | IOException e) {
            throw new BuildException("Cannot pull " + r.image() + ": " + e.getMessage(), e);
        } finally {
            Trees.delete(dir);
        }
    }

    /** What skopeo inspect prints of {@code image}: its summary, or ({@code raw}) its manifest as the registry has it. */
    private String inspect(Request r, Path dir, ImageName image, boolean raw) throws IOException {
        List<String> argv = new ArrayList<>(List.of("skopeo", "--policy", policy(dir).toString(), "inspect"));
        if (raw) argv.add("--raw");
        argv.addAll(tls("--tls-verify"));
        argv.addAll(credentials(r.login(), dir, "--authfile", "--no-creds"));
        argv.add("docker://" + image);
        return Captured.run(argv, environment(r, dir), timeout, r.secrets());
    }

    /** The compressed size of the layers this machine would copy: of its own manifest, when the image is a list. */
    private long compressedBytes(Request r, Path dir, ImageName resolved) throws IOException {
        String raw = inspect(r, dir, resolved, true);
        var bytes = Inspection.layerBytes(raw);
        if (bytes.isPresent()) return bytes.get();
        String mine = Inspection.platform(raw, "linux", ARCHITECTURE).orElseThrow(() ->
                new BuildException("the image has no linux/" + ARCHITECTURE + " variant"));
        return Inspection.layerBytes(inspect(r, dir, resolved.at(mine), true)).orElseThrow(() ->
                new BuildException("the image's linux/" + ARCHITECTURE + " manifest lists no layers"));
    }

    /** Copies and unpacks {@code resolved} (a digest from {@link #resolve}) as a new artifact of the project. */
    public Artifact pull(Request r, ImageName resolved, LogSink log) {
        if (!resolved.pinned()) throw new IllegalArgumentException("pull a resolved image, not " + resolved);
        Instant started = clock.instant();
        Path dir = workDir();
        String id = ids.next("art");
        Path root = artifactsDir.resolve(id);
        try {
            Path layout = dir.resolve("layout");
            List<String> copy = new ArrayList<>(List.of("skopeo", "--policy", policy(dir).toString(), "copy"));
            copy.addAll(tls("--src-tls-verify"));
            copy.addAll(credentials(r.login(), dir, "--src-authfile", "--src-no-creds"));
            copy.addAll(List.of("docker://" + resolved, "oci:" + layout + ":" + TAG));
            run(copy, dir, r, log);
            long bytes = LayerScan.unpackedBytes(layout, TAG, settings.maxBytes());
            log.log(Level.INFO, "Unpacking " + megabytes(bytes));
            // rootless: files are the server's, no device node is made, whatever the layers say
            run(List.of("umoci", "unpack", "--rootless", "--image", layout + ":" + TAG, root.toString()), dir, r, log);
            ImageRun run = config(root, resolved);
            List<String> command = command(root);
            Path rootfs = ImageRun.rootfs(root);
            Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.setPosixFilePermissions(rootfs, PosixFilePermissions.fromString("rwxr-xr-x"));
            ImageRoot.prepare(rootfs, List.of(Path.of(run.workDir())));
            Artifact artifact = new Artifact(id, r.projectId(), "image", null, root, command, null, false, null,
                    clock.instant(), List.of(), run);
            artifacts.save(artifact, bytes, Duration.between(started, clock.instant()));
            log.log(Level.INFO, "Start command: " + String.join(" ", command) + " in " + run.workDir());
            return artifact;
        } catch (BuildException e) {
            Trees.delete(root);
            throw new BuildException("Cannot pull " + resolved + ": " + e.getMessage(), e);
        } catch (IOException | RuntimeException e) {
            Trees.delete(root);
            throw new BuildException("Cannot unpack " + resolved + ": " + e.getMessage(), e);
        } finally {
            Trees.delete(dir);
        }
    }

    /** One step whose output goes to the log as it comes, like a build command's. */
    private void run(List<String> argv, Path dir, Request r, LogSink log) {
        runner.run(new CommandRunner.Command(argv, dir, environment(r, dir), timeout, r.secrets()), log);
    }

    /** A clean environment whose HOME and runtime dir are the pull's own: no login of the server's user is found. */
    private static Map<String, String> environment(Request r, Path dir) {
        Map<String, String> env = new LinkedHashMap<>(CommandRunner.baseEnvironment());
        env.put("HOME", dir.toString());
        env.put("XDG_RUNTIME_DIR", dir.toString());
        env.put("XDG_CONFIG_HOME", dir.toString());
        env.putAll(r.env());
        return env;
    }

    private List<String> tls(String flag) {
        return settings.insecure() ? List.of(flag + "=false") : List.of();
    }

    /** The project's login as an auth file of the pull's own (never on a command line), or no credentials at all. */
    private static List<String> credentials(RegistryLogin login, Path dir, String fileFlag, String noneFlag) throws IOException {
        if (login == null) return List.of(noneFlag);
        return List.of(fileFlag, login.authFile(dir.resolve("auth.json")).toString());
    }

    private static Path policy(Path dir) throws IOException {
        Path p = dir.resolve("policy.json");
        if (!Files.exists(p)) Files.writeString(p, POLICY);
        return p;
    }

    private Path workDir() {
        try {
            Files.createDirectories(scratch);
            Path dir = Files.createTempDirectory(scratch, "pull-");
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            return dir;
        } catch (IOException e) {
            throw new BuildException("cannot make a folder for the image under " + scratch + ": " + e.getMessage(), e);
        }
    }

    /** The image's Env and WorkingDir, from the runtime configuration umoci made of its config. */
    private static ImageRun config(Path bundle, ImageName resolved) throws IOException {
        JsonNode process = Json.MAPPER.readTree(bundle.resolve("config.json").toFile()).path("process");
        Map<String, String> env = new LinkedHashMap<>();
        for (JsonNode pair : process.path("env")) {
            String v = pair.asText("");
            int eq = v.indexOf('=');
            if (eq > 0) env.put(v.substring(0, eq), v.substring(eq + 1));
        }
        return new ImageRun(resolved.toString(), env, process.path("cwd").asText("/"));
    }

    /** The image's Entrypoint followed by its Cmd. */
    private static List<String> command(Path bundle) throws IOException {
        List<String> argv = new ArrayList<>();
        Json.MAPPER.readTree(bundle.resolve("config.json").toFile()).path("process").path("args").forEach(a -> argv.add(a.asText()));
        if (argv.isEmpty()) throw new BuildException("the image names no command to run (no Entrypoint and no Cmd)");
        return argv;
    }

    private static String megabytes(long bytes) {
        return bytes < 1 << 20 ? (bytes >> 10) + " KB" : (bytes >> 20) + " MB";
    }
}
