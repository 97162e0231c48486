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
    private static final StorageDriver DRIVER = StorageDriver.here();

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
        DRIVER.clearOthers(dirs.storage(), log);
        List<String> buildah = new ArrayList<>(List.of("buildah"));
        buildah.addAll(DRIVER.options(dirs.storage()));
        List<Base> loads = new ArrayList<>();
        for (int i = 0; i < from.size(); i++) {
            String base = from.get(i);
            ImageName name = ImageName.parse(base).orElseThrow(() -> new BuildException("the Dockerfile's FROM " + base
                    + " is not an image reference"));
            // the project's login goes to its own registry only, never to another one a FROM names
            var login = caller.login() != null && caller.login().registry().equals(name.registry()) ? caller.login() : null;
            var asker = new Registries.Caller(login, caller.env(), caller.secrets());
            ImageName resolved = registries.resolve(name, asker, log);
            Base load = new Base(base, resolved, asker, bases.resolve("b" + i), DRIVER.home(dirs.storage()));
            if (!load.held()) load.copy(registries, log);
            loads.add(load);
        }
        Path argumentsFile = arguments.isEmpty() ? null : BuildArguments.write(dirs.work().resolve("arguments"), arguments);
        confinement.handOver(dirs.work(), projectId);
        confinement.handOver(dirs.storage(), projectId);
        Steps docker = new Steps(steps.runner(), environment(dirs, steps.env()), steps.secrets(), steps.timeout(), steps.confine());
        for (Base load : loads) {
            if (load.held()) {
                try {
                    docker.run(load.reuse(buildah), dirs.work(), log);
                    log.log(Level.INFO, "Base image " + load.resolved() + " is in the project's layer cache: not pulled again");
                    continue;
                } catch (BuildException gone) {
                    log.log(Level.INFO, "Base image " + load.resolved() + " is not in the layer cache after all: pulling it");
                    Files.deleteIfExists(load.mark());
                    load.copy(registries, log);
                    confinement.handOver(load.layout(), projectId);
                }
            }
            docker.run(load.pull(dirs.work(), buildah), dirs.work(), log);
        }
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
        push.addAll(List.of("push", "--quiet"));
        // unpacked here at once: compressing every layer would only cost time, unless a registry gets the layout too
        if (pushTo == null) push.add("--disable-compression");
        push.addAll(List.of(image, "oci:" + out + ":" + TAG));
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

    /**
     * A base image a {@code FROM} names, at the digest it has now. The project's buildah storage keeps each base it
     * pulled under a name of its digest, with a mark beside it, so a later build tags that instead of pulling it
     * again; the marks go with the storage when the layer cache is emptied.
     */
    private record Base(String name, ImageName resolved, Registries.Caller asker, Path layout, Path store) {
        private static final String KEPT = "localhost/slipway-base:";

        /** {@code sha256:ab…} as a tag: {@code sha256-ab…}. */
        String key() {
            return resolved.digest().replace(':', '-');
        }

        Path mark() {
            return store.resolve("bases").resolve(key());
        }

        boolean held() {
            return Files.isRegularFile(mark(), LinkOption.NOFOLLOW_LINKS);
        }

        /** The platform's copy of it, into the build's OCI layout (with the server's reach, outside the cell). */
        void copy(Registries registries, LogSink log) {
            registries.copy(resolved, layout, TAG, asker, log);
        }

        /** Pulls the platform's copy into buildah, named as the FROM line says and by its digest, and marks it held. */
        List<String> pull(Path work, List<String> buildah) {
            List<String> load = new ArrayList<>(List.of("/bin/sh", "-c",
                    "set -e; layout=$1; name=$2; kept=$3; mark=$4; shift 4; id=$(\"$@\" pull -q \"$layout\"); "
                            + "\"$@\" tag \"$id\" \"$name\" \"$kept\"; mkdir -p \"${mark%/*}\"; : > \"$mark\"",
                    // relative to the step's folder: buildah names what it pulls after the path, which must be lowercase
                    "sh", "oci:" + work.relativize(layout) + ":" + TAG, name, KEPT + key(), mark().toString()));
            load.addAll(buildah);
            return load;
        }

        /** Names the image kept from an earlier pull as the FROM line says. */
        List<String> reuse(List<String> buildah) {
            List<String> tag = new ArrayList<>(buildah);
            tag.addAll(List.of("tag", KEPT + key(), name));
            return tag;
        }
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
