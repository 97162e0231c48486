package dev.slipway.build.steps;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The environment of every build command: the clean base (PATH, HOME, LANG), build defaults, then the
 * app's own variables (DATABASE_URL included), which win over the defaults but not over PATH and HOME, nor,
 * in the sandbox, over the package caches: a cell sees only its project's own cache, at the platform's path.
 */
public final class BuildEnvironment {
    private static final Set<String> PLATFORM_OWNED = Set.of("PATH", "HOME");
    private static final Set<String> SANDBOX_OWNED = Set.of("PATH", "HOME", "npm_config_cache", "PIP_CACHE_DIR");

    private BuildEnvironment() {}

    /**
     * @param npmrc the platform's npm configuration (its registry), read as npm's global file so that the app's own
     *              {@code .npmrc} and variables come first; null: none
     */
    public static Map<String, String> of(Path cacheDir, boolean sandboxed, Map<String, String> appEnv, Path npmrc) {
        Map<String, String> env = new LinkedHashMap<>(CommandRunner.baseEnvironment());
        if (sandboxed) { // only /usr and /etc are there: the server's PATH and HOME would point nowhere
            env.put("PATH", "/usr/local/bin:/usr/bin:/bin");
            env.put("HOME", "/tmp");
        }
        env.put("NODE_ENV", "production");
        env.put("NEXT_TELEMETRY_DISABLED", "1");
        env.put("npm_config_cache", cacheDir.resolve("npm").toString());
        env.put("npm_config_update_notifier", "false");
        env.put("npm_config_progress", "false");
        if (npmrc != null) env.put("npm_config_globalconfig", npmrc.toString());
        env.put("PIP_CACHE_DIR", cacheDir.resolve("pip").toString());
        env.put("PIP_DISABLE_PIP_VERSION_CHECK", "1");
        env.put("PIP_NO_INPUT", "1");
        env.put("PYTHONUNBUFFERED", "1");
        Set<String> owned = sandboxed ? SANDBOX_OWNED : PLATFORM_OWNED;
        appEnv.forEach((name, value) -> {
            if (!owned.contains(name) && value != null) env.put(name, value);
        });
        return env;
    }
}
