package dev.slipway.build.node;

import dev.slipway.build.toolchain.PackageManager.Kind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class NothingToInstallTest {
    @TempDir
    Path app;

    private boolean with(String packageJson) throws IOException {
        Files.writeString(app.resolve("package.json"), packageJson);
        return NothingToInstall.at(app, Kind.NPM);
    }

    @Test
    void anAppWithNoPackagesAndOnlyItsStartScriptHasNothingToInstall() throws IOException {
        assertThat(with("{\"name\":\"a\",\"scripts\":{\"start\":\"node server.js\",\"build\":\"node build.js\"}}")).isTrue();
        assertThat(with("{\"dependencies\":{},\"devDependencies\":{},\"workspaces\":[]}")).as("empty fields").isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"dependencies", "devDependencies", "optionalDependencies", "peerDependencies", "overrides"})
    void anyDeclaredPackageIsInstalled(String field) throws IOException {
        assertThat(with("{\"" + field + "\":{\"left-pad\":\"1.3.0\"}}")).isFalse();
    }

    @Test
    void workspacesBundlesAndInstallScriptsAreInstalled() throws IOException {
        assertThat(with("{\"workspaces\":[\"packages/*\"]}")).isFalse();
        assertThat(with("{\"bundleDependencies\":true}")).isFalse();
        for (String script : new String[]{"preinstall", "install", "postinstall", "prepare", "prepublish"}) {
            assertThat(with("{\"scripts\":{\"" + script + "\":\"node x.js\"}}")).as(script).isFalse();
        }
    }

    @Test
    void aLockfileOrInstalledPackagesAreLeftToNpm() throws IOException {
        Files.writeString(app.resolve("package-lock.json"), "{}");
        assertThat(with("{}")).isFalse();
        Files.delete(app.resolve("package-lock.json"));
        Files.createDirectory(app.resolve("node_modules"));
        assertThat(with("{}")).isFalse();
    }

    @Test
    void otherPackageManagersAndUnreadableFilesInstall() throws IOException {
        Files.writeString(app.resolve("package.json"), "{}");
        assertThat(NothingToInstall.at(app, Kind.PNPM)).isFalse();
        assertThat(NothingToInstall.at(app, Kind.YARN_BERRY)).isFalse();
        assertThat(with("{not json")).isFalse();
        assertThat(with("[]")).isFalse();
    }
}
