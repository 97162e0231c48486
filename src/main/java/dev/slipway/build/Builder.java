package dev.slipway.build;

import dev.slipway.logs.Masker;
import dev.slipway.core.Ids;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;
import dev.slipway.net.DatabaseEndpoint;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Turns a source tree into an immutable {@link Artifact}: copy into a workspace, detect the framework,
 * install and build there, move the result to {@code <data dir>/artifacts/<id>}, freeze it, record it.
 * Python apps get their venv after the move, because a venv only works where it was made.
 */
public final class Builder {
    private final BuildSettings config;
    private final CommandRunner runner;
    private final ArtifactStore store;
    private final FrameworkDetector detector = new FrameworkDetector();
    private final Toolchains toolchains;
    private final BuildCache buildCache;
    private final Clock clock;
    private final Ids ids;

    public Builder(BuildSettings config, CommandRunner runner, ArtifactStore store, Clock clock) {
        this.config = config;
        this.runner = runner;
        this.store = store;
        this.clock = clock;
        this.ids = new Ids(clock);
        this.toolchains = new Toolchains(new ToolStore(config.toolchainsDir(), new NpmRegistry(config.toolchainRegistry())), clock);
        this.buildCache = new BuildCache(new CacheStore(config.buildCacheDir(), config.cacheMb() * 1_000_000L, clock), runner.confinement());
    }

    /**
     * Builds and records an artifact. Every step and every line of output goes to {@code log}; on failure
     * the reason is logged at error level too, so the caller need not log it again.
     *
     * @param sourceDir    the checked-out source; it is copied, never modified
     * @param frameworkOrNull the project's framework setting, or null to detect it
     * @param env          the app's environment variables (DATABASE_URL included), available to every step
     * @param secretValues values masked in the log
     * @throws BuildException with a message for the user when the app cannot be built
     */
    public Artifact build(String projectId, String commitSha, Path sourceDir, String frameworkOrNull,
                          Map<String, String> env, Set<String> secretValues, LogSink log) {
        return build(projectId, commitSha, sourceDir, frameworkOrNull, null, env, secretValues, log);
    }

    /**
     * As above, for an app in a folder of its source ({@code appDir}, e.g. {@code apps/web}; null: the top).
     * Detection, build, start and static output all happen in that folder; with npm, pnpm or yarn workspaces
     * the install runs at the workspace's root.
     */
    public Artifact build(String projectId, String commitSha, Path sourceDir, String frameworkOrNull, String appDir,
                          Map<String, String> env, Set<String> secretValues, LogSink log) {
        return build(null, projectId, commitSha, sourceDir, frameworkOrNull, appDir, env, secretValues, log);
    }

    /**
     * As above, for a project of {@code accountId}: a Node build reuses the packages an earlier build of the
     * project installed with the same {@link CacheKey} ({@link BuildCache}); null: no build cache.
     */
    public Artifact build(String accountId, String projectId, String commitSha, Path sourceDir, String frameworkOrNull,
                          String appDir, Map<String, String> env, Set<String> secretValues, LogSink log) {
        return build(accountId, projectId, commitSha, sourceDir, frameworkOrNull, appDir, env, null, secretValues, log);
    }

    /**
     * As above, with the project's database as the platform recorded it (null: none): the one database the
     * build's steps may reach, whatever their variables say.
     */
    public Artifact build(String accountId, String projectId, String commitSha, Path sourceDir, String frameworkOrNull,
                          String appDir, Map<String, String> env, DatabaseEndpoint database, Set<String> secretValues,
                          LogSink log) {
        Instant started = clock.instant();
        String id = ids.next("art");
        Path workspace = config.workspacesDir().resolve(id);
        Path root = config.artifactsDir().resolve(id);
        Path cache = config.cacheDir(projectId);
        Steps steps = new Steps(runner, BuildEnvironment.of(cache, runner.confinement().isolated(), env), secretValues,
                config.commandTimeout(), new CommandRunner.Confine(dev.slipway.isolation.Sandbox.BUILD_PREFIX + id, projectId, cache, config.limits(),
                database));
        try {
            Files.createDirectories(config.workspacesDir());
            Files.createDirectories(config.artifactsDir());
            Files.createDirectories(cache.resolve("npm"));
            runner.confinement().handOver(cache, projectId);
            log.log(Level.INFO, "Copying the source" + (commitSha == null ? "" : " at commit " + shortSha(commitSha)));
            Trees.copySource(sourceDir, workspace);
            runner.confinement().handOver(workspace, projectId);
            Path app = appDir == null ? workspace : workspace.resolve(appDir).normalize();
            if (!app.startsWith(workspace) || !Files.isDirectory(app, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                throw new BuildException("the root directory " + appDir + " does not exist in the source"
                        + (commitSha == null ? "" : " at commit " + shortSha(commitSha)));
            }
            if (appDir != null) log.log(Level.INFO, "Root directory: " + appDir);

            FrameworkDetector.Detection detection = detector.detect(app, frameworkOrNull);
            Framework framework = detection.framework();
            log.log(Level.INFO, "Detected framework " + framework.id() + " (" + detection.reason() + ")");
            Optional<List<String>> procfile = Procfile.web(app);
            procfile.ifPresent(p -> log.log(Level.INFO, "Procfile web: line found; it overrides the start command"));

            Optional<PackageJson> pkg = PackageJson.read(app);
            Toolchain toolchain = Toolchain.SYSTEM;
            boolean ownInstall = false;
            if (framework.isNodeServer() || (framework.isStatic() && pkg.isPresent())) {
                PackageJson p = pkg.orElseThrow(() -> new BuildException(framework.id() + " needs a package.json and there is none"));
                Path installDir = PackageWorkspaces.rootOf(workspace, app);
                if (!installDir.equals(app)) {
                    log.log(Level.INFO, "Installing at the workspace root " + (installDir.equals(workspace) ? "/"
                            : workspace.relativize(installDir).toString()) + "; building in " + appDir);
                }
                toolchain = toolchains.prepare(installDir, log);
                Steps nodeSteps = toolchain.on(steps);
                NodeBuild node = new NodeBuild(nodeSteps, toolchain.packageManager());
                try (BuildCache.Use cached = buildCache.open(accountId, projectId, workspace, installDir, app, toolchain,
                        nodeSteps.env().get("PATH"), env, p.dependsOn("next"), log)) {
                    if (!cached.restore()) {
                        node.install(installDir, log);
                        cached.snapshot();
                    }
                    node.build(app, p, p.dependsOn("next") ? "next" : p.dependsOn("vite") ? "vite" : null, log);
                    cached.keep();
                }
                ownInstall = installDir.equals(app);
            }

            Files.move(workspace, root, StandardCopyOption.ATOMIC_MOVE);
            Path built = appDir == null ? root : root.resolve(appDir);

            List<String> start = List.of();
            List<String> scriptStart = toolchain.packageManager().start();
            StaticOutput site = null;
            Set<String> writable = Set.of();
            if (framework.isStatic()) {
                site = StaticOutput.find(built, pkg, framework);
                long freed = Trees.keepOnly(root, site.dir());
                if (freed > 0) log.log(Level.INFO, "Kept only the site: dropped " + megabytes(freed) + " of packages and sources");
                if (procfile.isPresent()) log.log(Level.WARNING, "Procfile ignored: a static site is served as files");
            } else if (framework.isNodeServer()) {
                boolean standalone = framework == Framework.NEXTJS && procfile.isEmpty() && NextStandalone.adopt(root, built, log);
                start = standalone ? NextStandalone.START : procfile.map(p -> StartCommands.procfile(built, p)).orElseGet(() -> framework == Framework.NEXTJS
                        ? StartCommands.nextjs(built, pkg.get(), scriptStart) : StartCommands.express(built, pkg.get(), scriptStart));
                if (!standalone && ownInstall) {
                    new DevDependencies(toolchain.on(steps), toolchain.packageManager(), config.workspacesDir().resolve(id + ".prune"))
                            .prune(root, built, pkg.get(), start, log);
                } else if (!standalone && !pkg.get().devDependencies().isEmpty()) {
                    log.log(Level.INFO, "Dev dependencies kept: the packages are installed at the workspace root");
                }
                if (framework == Framework.NEXTJS) {
                    // next start writes its image and fetch caches here
                    writable = Set.of(root.relativize(built.resolve(".next/cache")).toString());
                    Files.createDirectories(built.resolve(".next/cache"));
                }
            } else {
                PythonBuild python = new PythonBuild(steps, config.python());
                python.install(built, log);
                if (procfile.isPresent()) {
                    start = StartCommands.procfile(built, procfile.get());
                } else {
                    PythonApps.Entry entry = framework == Framework.PYTHON_FASTAPI ? PythonApps.fastapi(built) : PythonApps.any(built);
                    log.log(Level.INFO, "Serving " + entry.target() + " from " + entry.file() + " with "
                            + (entry.asgi() ? "uvicorn (ASGI)" : "gunicorn (WSGI)"));
                    python.checkServer(built, entry);
                    start = StartCommands.python(built, entry);
                }
            }

            long size = Trees.freeze(root, writable);
            Duration took = Duration.between(started, clock.instant());
            Artifact artifact = new Artifact(id, projectId, framework.id(), commitSha, root, start,
                    site == null ? null : site.dir(), site != null && site.spaFallback(), appDir, clock.instant(),
                    toolchain.homes());
            store.save(artifact, size, took);
            log.log(Level.INFO, site != null ? "Static site: serving " + describe(built, site)
                    : "Start command: " + CommandRunner.display(start, built));
            log.log(Level.SUCCESS, "Build finished in " + CommandRunner.human(took) + " (artifact " + id + ", "
                    + megabytes(size) + ")");
            return artifact;
        } catch (BuildException e) {
            cleanUp(workspace, root);
            Masker masker = new Masker(secretValues);
            String message = masker.mask(e.getMessage());
            log.log(Level.ERROR, "Build failed: " + message);
            if (message.equals(e.getMessage())) throw e;
            throw new BuildException(message, e.exitCode(), e.lastLines());
        } catch (IOException | RuntimeException e) {
            cleanUp(workspace, root);
            log.log(Level.ERROR, "Build failed: the build server could not prepare the files (" + e.getMessage() + ")");
            throw new BuildException("the build server could not prepare the files: " + e.getMessage(), e);
        }
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

    private static List<Path> children(Path dir) {
        if (!Files.isDirectory(dir)) return List.of();
        try (var entries = Files.list(dir)) {
            return entries.toList();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot list " + dir, e);
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
        return String.format(java.util.Locale.ROOT, "%.1f MB", bytes / 1_000_000.0);
    }
}
