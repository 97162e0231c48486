package dev.slipway.build.toolchain;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PackageManagerTest {
    @TempDir
    Path dir;

    private PackageManager.Request with(String packageJson, String lockfile, String lock) throws IOException {
        Files.writeString(dir.resolve("package.json"), packageJson);
        if (lockfile != null) Files.writeString(dir.resolve(lockfile), lock);
        return PackageManager.requested(dir);
    }

    @Test
    void npmWithItsLockfileAndWithout() throws IOException {
        assertThat(with("{}", null, null)).isEqualTo(new PackageManager.Request(PackageManager.Kind.NPM, false, null, null, "no lockfile"));
        assertThat(with("{}", "package-lock.json", "{}").kind()).isEqualTo(PackageManager.Kind.NPM);
        assertThat(new PackageManager(PackageManager.Kind.NPM, true, null).install()).startsWith("npm", "ci");
        assertThat(new PackageManager(PackageManager.Kind.NPM, false, null).install()).startsWith("npm", "install");
    }

    @Test
    void pnpmVersionFromPackageManagerElseFromTheLockfileVersion() throws IOException {
        var fromField = with("{\"packageManager\": \"pnpm@8.15.9+sha512.abc123\"}", "pnpm-lock.yaml", "lockfileVersion: '9.0'\n");
        assertThat(fromField).isEqualTo(new PackageManager.Request(PackageManager.Kind.PNPM, true, "8.15.9", "sha512.abc123",
                "pnpm-lock.yaml, packageManager pnpm@8.15.9 in package.json"));
        assertThat(with("{}", "pnpm-lock.yaml", "lockfileVersion: '6.0'\n").range()).isEqualTo("8");
        assertThat(with("{}", "pnpm-lock.yaml", "lockfileVersion: '9.0'\n").range()).isEqualTo("9");
        assertThat(with("{}", "pnpm-lock.yaml", "lockfileVersion: 5.4\n").range()).isEqualTo("7");
        assertThatThrownBy(() -> with("{}", "pnpm-lock.yaml", "lockfileVersion: '42.0'\n"))
                .hasMessageContaining("lockfileVersion 42.0").hasMessageContaining("add packageManager");
        assertThat(new PackageManager(PackageManager.Kind.PNPM, true, Path.of("/t/pnpm/8.15.9/bin/pnpm")).install())
                .containsExactly("/t/pnpm/8.15.9/bin/pnpm", "install", "--frozen-lockfile", "--prod=false");
    }

    @Test
    void yarnClassicOrBerryFromPackageManagerElseFromTheLockfile() throws IOException {
        assertThat(with("{}", "yarn.lock", "# yarn lockfile v1\n\nms@^2.0.0:\n  version \"2.0.0\"\n"))
                .extracting(PackageManager.Request::kind, PackageManager.Request::range)
                .containsExactly(PackageManager.Kind.YARN_CLASSIC, "1");
        assertThat(with("{}", "yarn.lock", "# generated\n\n__metadata:\n  version: 8\n  cacheKey: 10c0\n"))
                .extracting(PackageManager.Request::kind, PackageManager.Request::range)
                .containsExactly(PackageManager.Kind.YARN_BERRY, "4");
        assertThat(with("{}", "yarn.lock", "__metadata:\n  version: 6\n").range()).isEqualTo("3");
        assertThat(with("{\"packageManager\": \"yarn@1.22.22\"}", "yarn.lock", "__metadata:\n  version: 8\n").kind())
                .isEqualTo(PackageManager.Kind.YARN_CLASSIC);
        assertThat(with("{\"packageManager\": \"yarn@4.5.0\"}", "yarn.lock", "").kind()).isEqualTo(PackageManager.Kind.YARN_BERRY);
        assertThat(new PackageManager(PackageManager.Kind.YARN_BERRY, true, Path.of("/y/bin/yarn")).install())
                .containsExactly("/y/bin/yarn", "install", "--immutable");
        assertThat(new PackageManager(PackageManager.Kind.YARN_CLASSIC, true, Path.of("/y/bin/yarn")).run("build"))
                .containsExactly("/y/bin/yarn", "run", "build");
    }

    @Test
    void aLockfileWinsOverPackageManagerNamingAnotherTool() throws IOException {
        Files.writeString(dir.resolve("yarn.lock"), "");
        var r = with("{\"packageManager\": \"pnpm@9.0.0\"}", "pnpm-lock.yaml", "lockfileVersion: '9.0'\n");
        assertThat(r.kind()).isEqualTo(PackageManager.Kind.PNPM);
        assertThat(r.reason()).isEqualTo("pnpm-lock.yaml, packageManager pnpm@9.0.0 in package.json");
        Files.delete(dir.resolve("pnpm-lock.yaml"));
        assertThat(with("{\"packageManager\": \"pnpm@9.0.0\"}", null, null).reason()).startsWith("yarn.lock");
    }

    @Test
    void packageManagerWithoutALockfileStillNamesTheTool() throws IOException {
        var r = with("{\"packageManager\": \"pnpm@9.1.0\"}", null, null);
        assertThat(r).extracting(PackageManager.Request::kind, PackageManager.Request::locked, PackageManager.Request::range)
                .containsExactly(PackageManager.Kind.PNPM, false, "9.1.0");
        assertThatThrownBy(() -> with("{\"packageManager\": \"pnpm\"}", null, null))
                .hasMessageContaining("packageManager \"pnpm\" is not of the form");
    }

    @Test
    void bunComesFromTheRegistryAtItsPinnedVersionElseTheMachinesElseASayingFailure() throws IOException {
        var locked = with("{}", "bun.lockb", "x");
        assertThat(locked).extracting(PackageManager.Request::kind, PackageManager.Request::range)
                .containsExactly(PackageManager.Kind.BUN, PackageManager.BUN_MAJOR);
        assertThat(PackageManager.Kind.BUN.registryPackage).startsWith("@oven/bun-linux-");
        Files.delete(dir.resolve("bun.lockb"));
        var pinned = with("{\"packageManager\": \"bun@1.2.21\"}", "bun.lock", "{}");
        assertThat(pinned).extracting(PackageManager.Request::kind, PackageManager.Request::range, PackageManager.Request::reason)
                .containsExactly(PackageManager.Kind.BUN, "1.2.21", "bun.lock, packageManager bun@1.2.21 in package.json");
        if (Files.isExecutable(Path.of("/usr/local/bin/bun")) || Files.isExecutable(Path.of("/usr/bin/bun"))) return;
        assertThatThrownBy(() -> PackageManager.bun("the registry could not be reached"))
                .hasMessageContaining("bun is not available on this build server: the registry could not be reached")
                .hasMessageContaining("/usr/local/bin/bun").hasMessageContaining("package-lock.json");
    }
}
