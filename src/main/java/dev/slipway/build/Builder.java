package dev.slipway.build;

import dev.slipway.build.cache.BuildCache;
import dev.slipway.build.detect.FrameworkDetector;
import dev.slipway.build.docker.DockerfileBuild;
import dev.slipway.build.oci.Registries;
import dev.slipway.build.oci.Unpack;
import dev.slipway.build.detect.Procfile;
import dev.slipway.build.detect.PythonApps;
import dev.slipway.build.detect.ServerStarts;
import dev.slipway.build.detect.Stack;
import dev.slipway.build.detect.StartCommands;
import dev.slipway.build.node.DevDependencies;
import dev.slipway.build.node.NextStandalone;
import dev.slipway.build.node.NodeBuild;
import dev.slipway.build.node.NothingToInstall;
import dev.slipway.build.node.PackageWorkspaces;
import dev.slipway.build.python.PythonBuild;
import dev.slipway.build.statics.StaticOutput;
import dev.slipway.build.steps.BuildEnvironment;
import dev.slipway.build.steps.CommandRunner;
import dev.slipway.build.steps.Steps;
import dev.slipway.build.toolchain.PackageManager;
import dev.slipway.build.toolchain.Toolchain;
import dev.slipway.build.toolchain.Toolchains;
import dev.slipway.core.Ids;
import dev.slipway.isolation.Sandbox;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;
import dev.slipway.logs.Masker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Turns a source tree into an immutable {@link Artifact}: copy into a workspace, detect the framework,
 * install and build there, move the result to {@code <data dir>/artifacts/<id>}, freeze it, record it.
 * Python apps get their venv after the move, because a venv only works where it was made.
 *
 * <p>Its parts, one package each: {@code detect} (what the app is, and the command that starts it), {@code
 * toolchain} (the Node and package manager an app asks for), {@code cache} (installed packages reused between
 * builds), and a package per kind of build ({@code node}, {@code python}, {@code statics}). This package holds
 * what they share: running a build's commands ({@link Steps}), file trees, package.json and the artifacts.
 */
public final class Builder {
    /** The platform's npm configuration in a project's cache folder (its registry), when one is configured. */
    private static final String NPMRC = "npmrc";

    private final BuildSettings config;
    private final CommandRunner runner;
    private final ArtifactStore store;
    private final FrameworkDetector detector = new FrameworkDetector();
    private final Toolchains toolchains;
    private final BuildCache buildCache;
    private final Clock clock;
    private final Ids ids;
    private final DockerfileBuild docker;

    public Builder(BuildSettings config, CommandRunner runner, ArtifactStore store, Clock clock) {
        this(config, runner, store, clock, null);
    }

    /** @param docker what builds a Dockerfile; null: this builder refuses them */
    public Builder(BuildSettings config, CommandRunner runner, ArtifactStore store, Clock clock, DockerfileBuild docker) {
        this.docker = docker;
        this.config = config;
        this.runner = runner;
        this.store = store;
        this.clock = clock;
        this.ids = new Ids(clock);
        this.toolchains = Toolchains.in(config.toolchainsDir(), config.toolchainRegistry(), clock);
        this.buildCache = BuildCache.in(config.buildCacheDir(), config.cacheMb() * 1_000_000L, clock, runner.confinement());
    }

    /**
     * Builds and records an artifact. Every step and every line of output goes to {@code log}; on failure
     * the reason is logged at error level too, so the caller need not log it again.
     *
     * @throws BuildException with a message for the user when the app cannot be built
     */
    public Artifact build(BuildRequest request, LogSink log) {
        return new Build(request, log).run();
    }

    /**
     * The build {@code artifactId}'s app has started (or could not): its installed packages, when it put them off, go into
     * the build cache now, in the background.
     */
    public void started(String artifactId) {
        buildCache.takeLater(artifactId);
    }

    /** Deletes the build caches (the disk is short of space): builds only lose speed. The bytes freed. */
    public long evictCaches() {
        return buildCache.evictAll();
    }

    /**
     * Deletes what builds killed mid-way left behind (a crash or kill -9 skips {@link #cleanUp}): every
     * workspace, every artifact directory the store has no row for, and the build cache's half-made entries. Runs before this server builds
     * anything, so nothing it deletes can be in use; a data dir belongs to one server.
     *
     * @return how many directories were deleted
     */
    public int sweepLeftovers() {
        Set<String> recorded = store.recordedIds();
        int deleted = buildCache.sweep();
        for (Path dir : children(config.workspacesDir())) {
            Trees.delete(dir);
            deleted++;
        }
        for (Path dir : children(config.artifactsDir())) {
            String name = dir.getFileName().toString();
            if (name.startsWith("art_") && !recorded.contains(name)) {
                Trees.delete(dir);
                deleted++;
            }
        }
        return deleted;
    }

    /** What detection found in the app's folder. */
    private record Detected(Framework framework, Optional<List<String>> procfile, Optional<PackageJson> pkg, Stack stack) {}

    /** The toolchain a Node app was installed with; {@code atApp}: installed in its own folder, not a workspace root. */
    private record Installed(Toolchain toolchain, boolean atApp) {
        static final Installed NOTHING = new Installed(Toolchain.SYSTEM, false);
    }

    /** How the artifact is served: a start command, or the static site's folder; and what stays writable. */
    private record Served(List<String> start, StaticOutput site, Set<String> writable) {}

    /** One build, from the copy of its source to its recorded artifact. */
    private final class Build {
        private final BuildRequest request;
        private final LogSink log;
        private final Instant started = clock.instant();
        private final String id = ids.next("art");
        private final Path workspace = config.workspacesDir().resolve(id);
        private final Path root = config.artifactsDir().resolve(id);
        private final Path cache;
        private final Steps steps;
        /** The installed packages, to be cached once the app has started; null when they were cached or need not be. */
        private BuildCache.Later cacheLater;

        Build(BuildRequest request, LogSink log) {
            this.request = request;
            this.log = log;
            this.cache = config.cacheDir(request.projectId());
            this.steps = new Steps(runner, BuildEnvironment.of(cache, runner.confinement().isolated(), request.env(),
                    config.npmRegistry() == null ? null : cache.resolve(NPMRC)),
                    request.secretValues(), config.commandTimeout(), new CommandRunner.Confine(Sandbox.BUILD_PREFIX + id,
                    request.projectId(), cache, config.limits(), request.database()));
        }

        Artifact run() {
            try {
                Path app = copySource();
                Detected detected = detect(app);
                if (detected.framework() == Framework.DOCKER) return dockerImage(app, detected);
                Installed installed = installNode(app, detected);
                Files.move(workspace, root, StandardCopyOption.ATOMIC_MOVE);
                Path built = request.appDir() == null ? root : root.resolve(request.appDir());
                Served served = detected.framework().isStatic() ? staticSite(built, detected)
                        : detected.framework().isNodeServer() ? nodeServer(built, detected, installed)
                        : pythonApp(built, detected);
                Artifact artifact = record(built, detected.framework(), installed.toolchain(), served);
                if (cacheLater != null) cacheLater.register();
                return artifact;
            } catch (BuildException e) {
                cleanUp(workspace, root);
                throw masked(e);
            } catch (IOException | RuntimeException e) {
                cleanUp(workspace, root);
                log.log(Level.ERROR, "Build failed: the build server could not prepare the files (" + e.getMessage() + ")");
                throw new BuildException("the build server could not prepare the files: " + e.getMessage(), e);
            }
        }

        /** Copies the source into the workspace, for the project's uid; returns the app's folder there. */
        private Path copySource() throws IOException {
            Files.createDirectories(config.workspacesDir());
            Files.createDirectories(config.artifactsDir());
            Files.createDirectories(cache.resolve("npm"));
            if (config.npmRegistry() != null) Files.writeString(cache.resolve(NPMRC), "registry=" + config.npmRegistry() + "\n");
            runner.confinement().handOver(cache, request.projectId());
            log.log(Level.INFO, "Copying the source" + atCommit());
            Trees.copySource(request.sourceDir(), workspace);
            runner.confinement().handOver(workspace, request.projectId());
            String appDir = request.appDir();
            Path app = appDir == null ? workspace : workspace.resolve(appDir).normalize();
            if (!app.startsWith(workspace) || !Files.isDirectory(app, LinkOption.NOFOLLOW_LINKS)) {
                throw new BuildException("the root directory " + appDir + " does not exist in the source" + atCommit());
            }
            if (appDir != null) log.log(Level.INFO, "Root directory: " + appDir);
            return app;
        }

        private Detected detect(Path app) {
            FrameworkDetector.Detection detection = request.dockerfilePath() != null && request.framework() == null
                    ? new FrameworkDetector.Detection(Framework.DOCKER, "dockerfile_path is " + request.dockerfilePath())
                    : detector.detect(app, request.framework());
            log.log(Level.INFO, "Detected framework " + detection.framework().id() + " (" + detection.reason() + ")");
            Optional<List<String>> procfile = Optional.ofNullable(request.commands().start()).or(() -> Procfile.web(app));
            if (request.commands().start() != null) {
                log.log(Level.INFO, "slipway.toml [run] command: it is the start command"
                        + (Procfile.web(app).isPresent() ? " (over the Procfile's web: line)" : ""));
            } else {
                procfile.ifPresent(p -> log.log(Level.INFO, "Procfile web: line found; it overrides the start command"));
            }
            return new Detected(detection.framework(), procfile, PackageJson.read(app), detection.stack());
        }

        /**
         * Installs a Node app's packages (at its workspace's root, reusing the build cache when it can) and runs
         * its build; a Node server and a static site with a package.json have one, other apps nothing to do here.
         */
        private Installed installNode(Path app, Detected detected) {
            Framework framework = detected.framework();
            if (!framework.isNodeServer() && !(framework.isStatic() && detected.pkg().isPresent())) return Installed.NOTHING;
            PackageJson p = detected.pkg().orElseThrow(() -> new BuildException(framework.id() + " needs a package.json and there is none"));
            Path installDir = PackageWorkspaces.rootOf(workspace, app);
            if (!installDir.equals(app)) {
                log.log(Level.INFO, "Installing at the workspace root " + (installDir.equals(workspace) ? "/"
                        : workspace.relativize(installDir).toString()) + "; building in " + request.appDir());
            }
            Toolchain toolchain = toolchains.prepare(installDir, log);
            Steps nodeSteps = toolchain.on(steps);
            NodeBuild node = new NodeBuild(nodeSteps, toolchain.packageManager());
            if (installDir.equals(app) && NothingToInstall.at(app, toolchain.packageManager().kind())) {
                log.log(Level.INFO, "package.json declares no packages and no install script: nothing to install");
                if (request.commands().build() != null) ownBuild(nodeSteps, app);
                else node.build(app, p, null, log);
                return new Installed(toolchain, true);
            }
            String fallbackTool = p.dependsOn("next") ? "next" : p.dependsOn("vite") ? "vite" : null;
            boolean later = installDir.equals(app) && nothingRunsAfterInstall(framework, p, fallbackTool);
            try (BuildCache.Use cached = buildCache.open(request.accountId(), request.projectId(), workspace, installDir, app,
                    toolchain, nodeSteps.env().get("PATH"), request.env(), p.dependsOn("next"), log)) {
                boolean installs = !cached.restore();
                if (installs) {
                    node.install(installDir, log);
                    if (!later) cached.snapshot();
                }
                // a member builds with the workspace root's hoisted packages in sight, writing only its own folder
                NodeBuild building = installDir.equals(app) ? node : new NodeBuild(nodeSteps.seeing(installDir), toolchain.packageManager());
                if (request.commands().build() != null) ownBuild(installDir.equals(app) ? nodeSteps : nodeSteps.seeing(installDir), app);
                else building.build(app, p, fallbackTool, log);
                if (installs && later) cacheLater = cached.later(root.resolve(workspace.relativize(installDir).toString()), id);
                else cached.keep();
            }
            return new Installed(toolchain, installDir.equals(app));
        }

        /**
         * Whether nothing of the project's runs on its installed packages between the install and the artifact's freeze,
         * after which its cells see it read-only: no build script or command, no dev dependencies to prune, a server
         * started as it is (a static site keeps only its output). Under the sandbox its packages can then go into the
         * build cache after its app has started, off the deploy's path; elsewhere every step runs as the server's user.
         */
        private boolean nothingRunsAfterInstall(Framework framework, PackageJson p, String fallbackTool) {
            return runner.confinement().isolated() && framework.isNodeServer() && request.commands().build() == null
                    && p.script("build").isEmpty() && fallbackTool == null && p.devDependencies().isEmpty();
        }

        /**
         * The app's Dockerfile built into an image and unpacked as the artifact ({@link DockerfileBuild}); a Procfile
         * beside it names the image's web, release and worker commands, as in any app.
         */
        private Artifact dockerImage(Path app, Detected detected) throws IOException {
            if (docker == null) throw new BuildException("this server does not build Dockerfiles");
            Path work = config.workspacesDir().resolve(id + ".docker");
            Files.createDirectories(work);
            Steps imageSteps = new Steps(runner, steps.env(), request.secretValues(), config.commandTimeout(),
                    steps.confine().withReadOnly(List.of(workspace)).withoutDatabase().buildingImages(config.dataDir()));
            String marker = request.env().get(CommandRunner.BUILD_MARKER);
            var caller = new Registries.Caller(request.registryLogin(),
                    marker == null ? Map.of() : Map.of(CommandRunner.BUILD_MARKER, marker), request.secretValues());
            try {
                String file = request.dockerfilePath() != null ? request.dockerfilePath() : FrameworkDetector.DOCKERFILE;
                var dirs = new DockerfileBuild.Dirs(app, file, work, cache.resolve("buildah"));
                Unpack.Unpacked image = docker.build(new DockerfileBuild.Job(dirs, imageSteps, request.projectId(), id, root,
                        appVariables(), caller), runner.confinement(), log);
                List<String> start = detected.procfile().orElse(image.command());
                Path procfile = app.resolve(Procfile.NAME);
                if (Files.isRegularFile(procfile, LinkOption.NOFOLLOW_LINKS)) Files.copy(procfile, root.resolve(Procfile.NAME));
                Duration took = Duration.between(started, clock.instant());
                Artifact artifact = new Artifact(id, request.projectId(), Framework.DOCKER.id(), request.commitSha(), root, start,
                        null, false, null, clock.instant(), List.of(), image.run());
                store.save(artifact, image.bytes(), took);
                log.log(Level.SUCCESS, "Build finished in " + CommandRunner.human(took) + " (artifact " + id + ", "
                        + megabytes(image.bytes()) + ")");
                return artifact;
            } finally {
                Trees.delete(work);
                Trees.delete(workspace);
            }
        }

        /** The deployment's variables as the app set them (the build's marker is the platform's). */
        private Map<String, String> appVariables() {
            Map<String, String> variables = new LinkedHashMap<>(request.env());
            variables.remove(CommandRunner.BUILD_MARKER);
            return variables;
        }

        /** The repository's own build command ({@code slipway.toml} [build] command), by the shell, in the app's folder. */
        private void ownBuild(Steps on, Path dir) {
            log.log(Level.INFO, "Running the build command of slipway.toml: " + request.commands().build());
            on.run(List.of("sh", "-c", request.commands().build()), dir, log);
        }

        /** Keeps only the site's files. */
        private Served staticSite(Path built, Detected detected) throws IOException {
            if (request.commands().build() != null && detected.pkg().isEmpty()) ownBuild(steps, built);
            StaticOutput site = StaticOutput.find(built, detected.pkg(), detected.framework(), detected.stack());
            long freed = Trees.keepOnly(root, site.dir());
            if (freed > 0) log.log(Level.INFO, "Kept only the site: dropped " + megabytes(freed) + " of packages and sources");
            if (detected.procfile().isPresent()) log.log(Level.WARNING, "Procfile ignored: a static site is served as files");
            return new Served(List.of(), site, Set.of());
        }

        /** Next's standalone server when it built one; else the start command, with the dev dependencies dropped. */
        private Served nodeServer(Path built, Detected detected, Installed installed) throws IOException {
            Framework framework = detected.framework();
            PackageJson pkg = detected.pkg().get();
            PackageManager pm = installed.toolchain().packageManager();
            boolean standalone = framework == Framework.NEXTJS && detected.procfile().isEmpty() && NextStandalone.adopt(root, built, log);
            List<String> start = standalone ? NextStandalone.START : detected.procfile().map(p -> StartCommands.procfile(built, p))
                    .orElseGet(() -> framework == Framework.NEXTJS ? StartCommands.nextjs(built, pkg, pm.start())
                            : chosenStart(built, pkg, pm, detected.stack()));
            if (!standalone && installed.atApp()) {
                new DevDependencies(installed.toolchain().on(steps), installed.toolchain().packageManager(),
                        config.workspacesDir().resolve(id + ".prune")).prune(root, built, pkg, start, log);
            } else if (!standalone && !pkg.devDependencies().isEmpty()) {
                log.log(Level.INFO, "Dev dependencies kept: the packages are installed at the workspace root");
            }
            if (framework != Framework.NEXTJS) return new Served(start, null, Set.of());
            // next start writes its image and fetch caches here
            Files.createDirectories(built.resolve(".next/cache"));
            return new Served(start, null, Set.of(root.relativize(built.resolve(".next/cache")).toString()));
        }

        private List<String> chosenStart(Path built, PackageJson pkg, PackageManager pm, Stack stack) {
            ServerStarts.Chosen chosen = ServerStarts.choose(built, pkg, pm.start(), pm::run, stack);
            if (chosen.why() != null) log.log(Level.INFO, "Start: " + chosen.why());
            return chosen.argv();
        }

        /** Makes the venv where the app will run, then finds and checks its server unless a Procfile names it. */
        private Served pythonApp(Path built, Detected detected) {
            PythonBuild python = new PythonBuild(steps, config.python());
            python.install(built, log);
            if (request.commands().build() != null) ownBuild(steps, built);
            if (detected.procfile().isPresent()) {
                return new Served(StartCommands.procfile(built, detected.procfile().get()), null, Set.of());
            }
            PythonApps.Entry entry = detected.framework() == Framework.PYTHON_FASTAPI ? PythonApps.fastapi(built) : PythonApps.any(built);
            log.log(Level.INFO, "Serving " + entry.target() + " from " + entry.file() + " with "
                    + (entry.asgi() ? "uvicorn (ASGI)" : "gunicorn (WSGI)"));
            python.checkServer(built, entry);
            return new Served(StartCommands.python(built, entry), null, Set.of());
        }

        /** Freezes the artifact and records it. */
        private Artifact record(Path built, Framework framework, Toolchain toolchain, Served served) throws IOException {
            long size = Trees.freeze(root, served.writable());
            Duration took = Duration.between(started, clock.instant());
            StaticOutput site = served.site();
            Artifact artifact = new Artifact(id, request.projectId(), framework.id(), request.commitSha(), root, served.start(),
                    site == null ? null : site.dir(), site != null && site.spaFallback(), request.appDir(), clock.instant(),
                    toolchain.homes());
            store.save(artifact, size, took);
            log.log(Level.INFO, site != null ? "Static site: serving " + describe(built, site)
                    : "Start command: " + CommandRunner.display(served.start(), built));
            log.log(Level.SUCCESS, "Build finished in " + CommandRunner.human(took) + " (artifact " + id + ", "
                    + megabytes(size) + ")");
            return artifact;
        }

        /** The failure, logged, with the request's secret values masked in its message. */
        private BuildException masked(BuildException e) {
            String message = new Masker(request.secretValues()).mask(e.getMessage());
            log.log(Level.ERROR, "Build failed: " + message);
            return message.equals(e.getMessage()) ? e : new BuildException(message, e.exitCode(), e.lastLines());
        }

        private String atCommit() {
            return request.commitSha() == null ? "" : " at commit " + shortSha(request.commitSha());
        }
    }

    private static List<Path> children(Path dir) {
        if (!Files.isDirectory(dir)) return List.of();
        try (var entries = Files.list(dir)) {
            return entries.toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir, e);
        }
    }

    private static void cleanUp(Path workspace, Path root) {
        try {
            Trees.delete(workspace);
            Trees.delete(root);
        } catch (RuntimeException ignored) {
            // best effort; the build error is what matters
        }
    }

    private static String describe(Path root, StaticOutput site) {
        String dir = site.dir().equals(root) ? "the app's folder" : root.relativize(site.dir()) + "/";
        return dir + (site.spaFallback() ? " (a single-page app: unknown paths get index.html)"
                : Files.isRegularFile(site.dir().resolve(StaticOutput.NOT_FOUND_PAGE)) ? " (unknown paths get its 404.html)" : "");
    }

    private static String shortSha(String sha) {
        return sha.length() > 12 ? sha.substring(0, 12) : sha;
    }

    private static String megabytes(long bytes) {
        return String.format(Locale.ROOT, "%.1f MB", bytes / 1_000_000.0);
    }
}
