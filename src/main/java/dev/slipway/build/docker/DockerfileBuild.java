package dev.slipway.build.docker;

import dev.slipway.build.BuildException;
import dev.slipway.build.oci.ImageName;
import dev.slipway.build.oci.Registries;
import dev.slipway.build.oci.Unpack;
import dev.slipway.build.steps.CommandRunner;
import dev.slipway.build.steps.Steps;
import dev.slipway.isolation.Confinement;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Builds an app's Dockerfile into an image, without a daemon and without root on the host: the platform pulls the
 * base images ({@link Registries}, with the server's reach, into an OCI layout), then rootless {@code buildah}
 * runs as the project's uid in an image build's cell ({@link Confinement#startImageBuild}: its network, firewall,
 * limits and time limit, the data dir out of sight), with pulling off; a {@code RUN} step is root only inside the
 * user namespace buildah makes. The image is copied out as an OCI layout and unpacked into the artifact.
 * Each project keeps its buildah storage in its build cache, so an unchanged step is not run again (layers).
 */
public final class DockerfileBuild {
    private static final String TAG = "image";

    private final Registries registries;
    private final Unpack unpack;
    private final long maxBytes;
    private final long layerCacheBytes;
    private final String pushTo;

    /**
     * @param maxBytes        the most an image holds, unpacked
     * @param layerCacheBytes the most a project's buildah storage (its layer cache) holds after a build; 0: none kept
     * @param pushTo          the platform's image registry ({@code SLIPWAY_IMAGE_REGISTRY}), where each built image is
     *                        pushed for runtimes that pull images (Kubernetes); null: not pushed
     */
    public DockerfileBuild(Registries registries, Unpack unpack, long maxBytes, long layerCacheBytes, String pushTo) {
        this.registries = registries;
        this.unpack = unpack;
        this.maxBytes = maxBytes;
        this.layerCacheBytes = layerCacheBytes;
        this.pushTo = pushTo;
    }

    /**
     * Where a build keeps what is not its context: the base images, its image, buildah's home and scratch.
     *
     * @param dockerfile the Dockerfile, relative to {@code context}
     */
    public record Dirs(Path context, String dockerfile, Path work, Path storage) {}

    /**
     * One build of a project's Dockerfile.
     *
     * @param steps      the build's steps, confined as an image build with the context read-only
     * @param artifactId the build's artifact, whose folder {@code root} is made here (the unpacked image)
     * @param variables  the app's variables: those the Dockerfile declares as {@code ARG}s are its build arguments
     */
    public record Job(Dirs dirs, Steps steps, String projectId, String artifactId, Path root, Map<String, String> variables,
                      Registries.Caller caller) {}

    public Unpack.Unpacked build(Job job, Confinement confinement, LogSink log) throws IOException {
        Dirs dirs = job.dirs();
        Steps steps = job.steps();
        Registries.Caller caller = job.caller();
        String projectId = job.projectId();
        Map<String, String> variables = job.variables();
        Path dockerfile = dirs.context().resolve(dirs.dockerfile()).normalize();
        if (!dockerfile.startsWith(dirs.context()) || !Files.isRegularFile(dockerfile, LinkOption.NOFOLLOW_LINKS)) {
            throw new BuildException("there is no Dockerfile at " + dirs.dockerfile() + " in the app's folder");
        }
        DockerfileText text = DockerfileText.parse(Files.readString(dockerfile, StandardCharsets.UTF_8));
        Map<String, String> arguments = BuildArguments.of(text, variables, log);
        Path bases = Files.createDirectories(dirs.work().resolve("bases"));
        Path out = dirs.work().resolve("out");
        for (String d : List.of("home", "tmp", "run")) Files.createDirectories(dirs.work().resolve(d));
        Files.createDirectories(dirs.storage());
        List<String> from = text.baseImages(arguments);
        List<String> buildah = List.of("buildah", "--root", dirs.storage().resolve("root").toString(),
                "--runroot", dirs.storage().resolve("run").toString(), "--storage-driver", "vfs");
        List<List<String>> loads = new ArrayList<>();
        for (int i = 0; i < from.size(); i++) {
            String base = from.get(i);
            ImageName name = ImageName.parse(base).orElseThrow(() -> new BuildException("the Dockerfile's FROM " + base
                    + " is not an image reference"));
            // the project's login goes to its own registry only, never to another one a FROM names
            var login = caller.login() != null && caller.login().registry().equals(name.registry()) ? caller.login() : null;
            var asker = new Registries.Caller(login, caller.env(), caller.secrets());
            ImageName resolved = registries.resolve(name, asker, log);
            registries.copy(resolved, bases.resolve("b" + i), TAG, asker, log);
            List<String> load = new ArrayList<>(List.of("/bin/sh", "-c",
                    "set -e; layout=$1; name=$2; shift 2; id=$(\"$@\" pull -q \"$layout\"); \"$@\" tag \"$id\" \"$name\"",
                    // relative to the step's folder: buildah names what it pulls after the path, which must be lowercase
                    "sh", "oci:" + dirs.work().relativize(bases.resolve("b" + i)) + ":" + TAG, base));
            load.addAll(buildah);
            loads.add(load);
        }
        Path argumentsFile = arguments.isEmpty() ? null : BuildArguments.write(dirs.work().resolve("arguments"), arguments);
        confinement.handOver(dirs.work(), projectId);
        confinement.handOver(dirs.storage(), projectId);
        Steps docker = new Steps(steps.runner(), environment(dirs, steps.env()), steps.secrets(), steps.timeout(), steps.confine());
        for (List<String> load : loads) docker.run(load, dirs.work(), log);
        // one name per project: the image it held before keeps its layers, as the cache of this build's steps
        String image = "localhost/slipway-build:latest";
        List<String> bud = new ArrayList<>(buildah);
        bud.addAll(List.of("bud", "--pull=never", "--isolation", "chroot", "--layers", "-f", dockerfile.toString(), "-t", image));
        for (String name : arguments.keySet()) bud.addAll(List.of("--build-arg", name));
        bud.add(dirs.context().toString());
        if (argumentsFile != null) bud = BuildArguments.withArguments(argumentsFile, bud);
        log.log(Level.INFO, "Building the Dockerfile (" + (from.isEmpty() ? "from scratch" : "on " + String.join(", ", from)) + ")"
                + (arguments.isEmpty() ? "" : "; build arguments from the app's variables: " + String.join(", ", arguments.keySet())));
        docker.run(bud, dirs.work(), log);
        List<String> push = new ArrayList<>(buildah);
        push.addAll(List.of("push", "--quiet", image, "oci:" + out + ":" + TAG));
        docker.run(push, dirs.work(), log);
        LayerCache.bound(dirs.storage(), layerCacheBytes, log);
        String pushed = null;
        if (pushTo != null) {
            pushed = registries.push(out, TAG, pushTo + "/" + projectId.toLowerCase(Locale.ROOT) + ":"
                    + job.artifactId().toLowerCase(Locale.ROOT), caller, log);
            log.log(Level.INFO, "Image pushed: " + pushed);
        }
        return unpack.unpack(out, TAG, job.root(), maxBytes, pushed, caller.env(), steps.secrets(), log);
    }

    /** buildah's own environment: its home, scratch and runtime dir in the build's folder; chroot isolation. */
    private static Map<String, String> environment(Dirs dirs, Map<String, String> build) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin");
        env.put("LANG", "C.UTF-8");
        env.put("HOME", dirs.work().resolve("home").toString());
        env.put("TMPDIR", dirs.work().resolve("tmp").toString());
        env.put("XDG_RUNTIME_DIR", dirs.work().resolve("run").toString());
        env.put("BUILDAH_ISOLATION", "chroot");
        String marker = build.get(CommandRunner.BUILD_MARKER);
        if (marker != null) env.put(CommandRunner.BUILD_MARKER, marker);
        return env;
    }
}
