package dev.slipway.build.steps;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class BuildEnvironmentTest {
    private static final Path CACHE = Path.of("/data/cache/prj_1");
    private static final Map<String, String> APP = Map.of("npm_config_cache", "/root/.npm", "PIP_CACHE_DIR", "/root/pip",
            "PATH", "/evil", "npm_config_offline", "true", "DATABASE_URL", "postgres://x");

    @Test
    void inTheSandboxTheProjectsOwnCachesWinOverTheAppsVariables() {
        Map<String, String> env = BuildEnvironment.of(CACHE, true, APP, null);
        assertThat(env).containsEntry("npm_config_cache", "/data/cache/prj_1/npm")
                .containsEntry("PIP_CACHE_DIR", "/data/cache/prj_1/pip")
                .containsEntry("PATH", "/usr/local/bin:/usr/bin:/bin").containsEntry("HOME", "/tmp")
                .containsEntry("npm_config_offline", "true").containsEntry("DATABASE_URL", "postgres://x");
    }

    @Test
    void withoutTheSandboxTheAppMayPointItsCachesElsewhere() {
        Map<String, String> env = BuildEnvironment.of(CACHE, false, APP, null);
        assertThat(env).containsEntry("npm_config_cache", "/root/.npm").containsEntry("PIP_CACHE_DIR", "/root/pip");
        assertThat(env.get("PATH")).isNotEqualTo("/evil");
    }

    @Test
    void thePlatformsRegistryIsNpmsGlobalFileSoTheAppsOwnSettingsComeFirst() {
        assertThat(BuildEnvironment.of(CACHE, true, APP, null)).doesNotContainKey("npm_config_globalconfig");
        Path npmrc = CACHE.resolve("npmrc");
        assertThat(BuildEnvironment.of(CACHE, true, APP, npmrc)).containsEntry("npm_config_globalconfig", npmrc.toString())
                .doesNotContainKey("npm_config_registry");
        assertThat(BuildEnvironment.of(CACHE, true, Map.of("npm_config_registry", "https://npm.example.com/"), npmrc))
                .containsEntry("npm_config_registry", "https://npm.example.com/");
    }
}
