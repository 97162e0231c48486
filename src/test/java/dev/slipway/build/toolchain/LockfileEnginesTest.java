package dev.slipway.build.toolchain;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The engines npm and pnpm record in their lockfiles, as they write them. */
class LockfileEnginesTest {
    @TempDir
    Path dir;

    @Test
    void npmLockfilesNameEachPackageWithItsVersionAndSkipTheAppItself() throws IOException {
        Files.writeString(dir.resolve("package-lock.json"), """
                {"name": "app", "lockfileVersion": 3, "packages": {
                  "": {"name": "app", "engines": {"node": ">=18"}},
                  "apps/web": {"name": "@acme/web", "engines": {"node": ">=20"}},
                  "node_modules/commander": {"version": "15.0.0", "engines": {"node": ">=22.12.0"}},
                  "node_modules/a/node_modules/b": {"version": "1.0.0", "engines": {"npm": ">=9"}},
                  "node_modules/old": {"version": "1.0.0", "engines": ["node >= 0.4"]}}}""");
        assertThat(LockfileEngines.read(dir)).containsExactly(
                new LockfileEngines.Requirement("apps/web@?", ">=20", "package-lock.json"),
                new LockfileEngines.Requirement("commander@15.0.0", ">=22.12.0", "package-lock.json"));
    }

    @Test
    void pnpmLockfilesToo() throws IOException {
        Files.writeString(dir.resolve("pnpm-lock.yaml"), """
                lockfileVersion: '9.0'
                packages:
                  nuxt@4.2.1:
                    resolution: {integrity: sha512-x}
                    engines: {node: ^20.19.0 || >=22.12.0}
                  ms@2.1.3:
                    resolution: {integrity: sha512-y}
                """);
        assertThat(LockfileEngines.read(dir)).containsExactly(
                new LockfileEngines.Requirement("nuxt@4.2.1", "^20.19.0 || >=22.12.0", "pnpm-lock.yaml"));
    }

    @Test
    void noLockfileOrABrokenOneHasNone() throws IOException {
        assertThat(LockfileEngines.read(dir)).isEmpty();
        Files.writeString(dir.resolve("package-lock.json"), "{ not json");
        assertThat(LockfileEngines.read(dir)).isEmpty();
    }
}
