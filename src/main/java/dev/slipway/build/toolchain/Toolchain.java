package dev.slipway.build.toolchain;

import dev.slipway.build.BuildSettings;
import dev.slipway.build.steps.Steps;
import dev.slipway.core.Env;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The Node and package manager one Node app builds and runs with.
 *
 * @param homes tool homes ({@link ToolStore}): each one's {@code bin} goes first on PATH, and cells see them
 *              read-only; empty when the app uses the machine's Node and npm
 */
public record Toolchain(List<Path> homes, PackageManager packageManager) {
    private static final String EXTRA_CA = BuildSettings.NODE_EXTRA_CA_CERTS.variable();
    /** The machine's Node and npm, as before a package.json was read. */
    public static final Toolchain SYSTEM = new Toolchain(List.of(), new PackageManager(PackageManager.Kind.NPM, false, null));

    public Toolchain {
        homes = List.copyOf(homes);
    }

    /**
     * The machine's extra CA file for Node (a TLS-intercepting proxy's), when the server has one that cells
     * see: npm, pnpm and yarn classic read the machine's npmrc {@code cafile}, but yarn berry reads only this.
     */
    private static Optional<String> extraCertificates() {
        String file = Env.system().text(BuildSettings.NODE_EXTRA_CA_CERTS, null);
        if (file == null || !(file.startsWith("/etc/") || file.startsWith("/usr/")) || !Files.isReadable(Path.of(file))) {
            return Optional.empty();
        }
        return Optional.of(file);
    }

    /** The PATH of a step or an app: the homes' bin directories before {@code path}. */
    static String path(List<Path> homes, String path) {
        List<String> parts = new ArrayList<>();
        for (Path home : homes) parts.add(home.resolve("bin").toString());
        parts.add(path);
        return String.join(":", parts);
    }

    /** The build's steps with this toolchain first on PATH, visible in their cells, and its caches in the project's. */
    public Steps on(Steps steps) {
        Map<String, String> env = new HashMap<>(steps.env());
        env.put("PATH", path(homes, env.getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin")));
        extraCertificates().ifPresent(file -> env.putIfAbsent(EXTRA_CA, file));
        Path cache = steps.confine().cacheDir();
        switch (packageManager.kind()) {
            case PNPM -> env.put("npm_config_store_dir", cache.resolve("pnpm-store").toString());
            case YARN_CLASSIC -> env.put("YARN_CACHE_FOLDER", cache.resolve("yarn").toString());
            case YARN_BERRY -> {
                // Plug'n'Play loads packages from the cache's zips where they are: the app's own .yarn/cache, so
                // that they are part of the artifact (a cache outside it is not in the app's cell)
                env.put("YARN_GLOBAL_FOLDER", cache.resolve("yarn-global").toString());
                env.put("YARN_ENABLE_GLOBAL_CACHE", "false");
                env.put("YARN_ENABLE_TELEMETRY", "0");
            }
            case BUN -> env.put("BUN_INSTALL_CACHE_DIR", cache.resolve("bun").toString());
            case NPM -> { }
        }
        return new Steps(steps.runner(), env, steps.secrets(), steps.timeout(), steps.confine().withReadOnly(homes));
    }
}
