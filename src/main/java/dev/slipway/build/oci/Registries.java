package dev.slipway.build.oci;

import dev.slipway.build.BuildException;
import dev.slipway.build.RegistryLogin;
import dev.slipway.build.Trees;
import dev.slipway.build.steps.CommandRunner;
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
 * The platform's reach into registries, with {@code skopeo}: a tag resolved to its digest, checked for this machine's
 * platform and the size limit before anything is copied, and an image copied into an OCI layout. It runs as the
 * server, on the host, outside every tenant's cell: the registry may be on the host's loopback, which no app
 * reaches. Nothing of the server user's own registry logins is used, only the one given ({@link RegistryLogin}).
 */
public final class Registries {
    /** Accepts any image: which images a project may run is the project's choice; the digest pins the bytes. */
    private static final String POLICY = "{\"default\":[{\"type\":\"insecureAcceptAnything\"}]}";
    public static final String ARCHITECTURE = switch (System.getProperty("os.arch")) {
        case "aarch64" -> "arm64";
        case "amd64", "x86_64" -> "amd64";
        default -> System.getProperty("os.arch");
    };

    /**
     * @param insecure plain HTTP and unverified HTTPS allowed (a registry on loopback)
     * @param maxBytes the most an image may hold, compressed
     * @param scratch  where each call keeps its policy and auth files, in a folder of its own deleted after
     * @param timeout  the longest one skopeo call may take
     */
    public record Settings(boolean insecure, long maxBytes, Path scratch, Duration timeout) {}

    /**
     * Who asks, for the log and the process table.
     *
     * @param env     environment additions of every call (a deployment's marker, so a cancel finds them)
     * @param secrets values masked in every line and message (the project's secrets, its registry password)
     */
    public record Caller(RegistryLogin login, Map<String, String> env, Set<String> secrets) {
        public static final Caller ANONYMOUS = new Caller(null, Map.of(), Set.of());
    }

    private final Settings settings;
    private final CommandRunner runner;

    public Registries(Settings settings, Clock clock) {
        this.settings = settings;
        this.runner = new CommandRunner(clock);
    }

    /** The image at its digest now, checked for this machine's platform and the size limit. */
    public ImageName resolve(ImageName image, Caller caller, LogSink log) {
        Path dir = callDir();
        try {
            Inspection seen = Inspection.parse(inspect(caller, dir, image, false));
            if (!seen.os().isEmpty() && !seen.os().equals("linux")) {
                throw new BuildException("the image " + image + " is for " + seen.os() + ", not linux");
            }
            if (!seen.architecture().isEmpty() && !seen.architecture().equals(ARCHITECTURE)) {
                throw new BuildException("the image " + image + " is for " + seen.architecture() + "; this machine runs " + ARCHITECTURE);
            }
            ImageName resolved = image.at(image.pinned() ? image.digest() : seen.digest());
            long bytes = compressedBytes(caller, dir, resolved);
            if (bytes > settings.maxBytes()) {
                throw new BuildException("the image is " + (bytes >> 20) + " MB compressed, more than the limit of "
                        + (settings.maxBytes() >> 20) + " MB (SLIPWAY_IMAGE_MAX_MB)");
            }
            log.log(Level.INFO, "Image " + image + (image.pinned() ? "" : " is " + resolved) + " (" + Unpack.megabytes(bytes) + " compressed)");
            return resolved;
        } catch (BuildException | IOException e) {
            throw new BuildException("Cannot pull " + image + ": " + e.getMessage(), e);
        } finally {
            Trees.delete(dir);
        }
    }

    /** Copies {@code image} (best at a digest from {@link #resolve}) into the OCI layout {@code layout} as {@code tag}. */
    public void copy(ImageName image, Path layout, String tag, Caller caller, LogSink log) {
        Path dir = callDir();
        try {
            List<String> argv = new ArrayList<>(List.of("skopeo", "--policy", policy(dir).toString(), "copy"));
            argv.addAll(tls("--src-tls-verify"));
            argv.addAll(credentials(caller.login(), dir, "--src-authfile", "--src-no-creds"));
            argv.addAll(List.of("docker://" + image, "oci:" + layout + ":" + tag));
            runner.run(new CommandRunner.Command(argv, dir, environment(caller, dir), settings.timeout(), caller.secrets()), log);
        } catch (IOException e) {
            throw new BuildException("Cannot pull " + image + ": " + e.getMessage(), e);
        } finally {
            Trees.delete(dir);
        }
    }

    /**
     * Copies the image {@code tag} of the OCI layout {@code layout} to {@code target} ({@code host[:port]/path:tag}),
     * with the server's own registry logins (the platform's registry is the operator's, not a tenant's).
     *
     * @return {@code target}'s repository at the digest it now has there
     */
    public String push(Path layout, String tag, String target, Caller caller, LogSink log) {
        Path dir = callDir();
        try {
            Path digest = dir.resolve("digest");
            List<String> argv = new ArrayList<>(List.of("skopeo", "--policy", policy(dir).toString(), "copy", "--quiet"));
            argv.addAll(tls("--dest-tls-verify"));
            argv.addAll(List.of("--digestfile", digest.toString(), "oci:" + layout + ":" + tag, "docker://" + target));
            Map<String, String> env = new LinkedHashMap<>(CommandRunner.baseEnvironment());
            env.putAll(caller.env());
            runner.run(new CommandRunner.Command(argv, dir, env, settings.timeout(), caller.secrets()), log);
            String repository = target.substring(0, target.lastIndexOf(':'));
            return repository + "@" + Files.readString(digest).strip();
        } catch (IOException e) {
            throw new BuildException("Cannot push the image to " + target + ": " + e.getMessage(), e);
        } finally {
            Trees.delete(dir);
        }
    }

    /** What skopeo inspect prints of {@code image}: its summary, or ({@code raw}) its manifest as the registry has it. */
    private String inspect(Caller caller, Path dir, ImageName image, boolean raw) throws IOException {
        List<String> argv = new ArrayList<>(List.of("skopeo", "--policy", policy(dir).toString(), "inspect"));
        if (raw) argv.add("--raw");
        argv.addAll(tls("--tls-verify"));
        argv.addAll(credentials(caller.login(), dir, "--authfile", "--no-creds"));
        argv.add("docker://" + image);
        return Captured.run(argv, environment(caller, dir), settings.timeout(), caller.secrets());
    }

    /** The compressed size of the layers this machine would copy: of its own manifest, when the image is a list. */
    private long compressedBytes(Caller caller, Path dir, ImageName resolved) throws IOException {
        String raw = inspect(caller, dir, resolved, true);
        var bytes = Inspection.layerBytes(raw);
        if (bytes.isPresent()) return bytes.get();
        String mine = Inspection.platform(raw, "linux", ARCHITECTURE).orElseThrow(() ->
                new BuildException("the image has no linux/" + ARCHITECTURE + " variant"));
        return Inspection.layerBytes(inspect(caller, dir, resolved.at(mine), true)).orElseThrow(() ->
                new BuildException("the image's linux/" + ARCHITECTURE + " manifest lists no layers"));
    }

    /** A clean environment whose HOME and runtime dir are the call's own: no login of the server's user is found. */
    private static Map<String, String> environment(Caller caller, Path dir) {
        Map<String, String> env = new LinkedHashMap<>(CommandRunner.baseEnvironment());
        env.put("HOME", dir.toString());
        env.put("XDG_RUNTIME_DIR", dir.toString());
        env.put("XDG_CONFIG_HOME", dir.toString());
        env.putAll(caller.env());
        return env;
    }

    private List<String> tls(String flag) {
        return settings.insecure() ? List.of(flag + "=false") : List.of();
    }

    /** The login as an auth file of the call's own (never on a command line), or no credentials at all. */
    private static List<String> credentials(RegistryLogin login, Path dir, String fileFlag, String noneFlag) throws IOException {
        if (login == null) return List.of(noneFlag);
        return List.of(fileFlag, login.authFile(dir.resolve("auth.json")).toString());
    }

    private static Path policy(Path dir) throws IOException {
        Path p = dir.resolve("policy.json");
        if (!Files.exists(p)) Files.writeString(p, POLICY);
        return p;
    }

    private Path callDir() {
        try {
            Files.createDirectories(settings.scratch());
            Path dir = Files.createTempDirectory(settings.scratch(), "call-");
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            return dir;
        } catch (IOException e) {
            throw new BuildException("cannot make a folder under " + settings.scratch() + ": " + e.getMessage(), e);
        }
    }
}
