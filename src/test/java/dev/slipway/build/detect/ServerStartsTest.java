package dev.slipway.build.detect;

import dev.slipway.build.BuildException;
import dev.slipway.build.PackageJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** How a built server starts when its start script would rebuild it, or a meta-framework has none. */
class ServerStartsTest {
    @TempDir
    Path root;

    private static final List<String> NPM_START = List.of("npm", "start");

    private PackageJson pkg(String json) throws IOException {
        Files.writeString(root.resolve("package.json"), json);
        return PackageJson.read(root).orElseThrow();
    }

    private ServerStarts.Chosen choose(PackageJson p, Stack stack) {
        return ServerStarts.choose(root, p, NPM_START, script -> List.of("npm", "run", script), stack);
    }

    @Test
    void scriptsThatCompileAreToldFromScriptsThatRun() {
        assertThat(ServerStarts.rebuilds("nest start")).isTrue();
        assertThat(ServerStarts.rebuilds("tsc && node dist/index.js")).isTrue();
        assertThat(ServerStarts.rebuilds("npm run build && node server.js")).isTrue();
        assertThat(ServerStarts.rebuilds("next build && next start")).isTrue();
        assertThat(ServerStarts.rebuilds("node dist/main")).isFalse();
        assertThat(ServerStarts.rebuilds("react-router-serve ./build/server/index.js")).isFalse();
        assertThat(ServerStarts.rebuilds("node tscheck.js")).isFalse();
        assertThat(ServerStarts.rebuilds("next start")).isFalse();
    }

    @Test
    void nestStartIsReplacedByStartProdOrTheCompiledEntry() throws IOException {
        var chosen = choose(pkg("""
                {"scripts": {"start": "nest start", "start:prod": "node dist/main"}}"""), Stack.NESTJS);
        assertThat(chosen.argv()).containsExactly("node", "dist/main");
        assertThat(chosen.why()).contains("`nest start` would build the app again").contains("start:prod");

        Files.createDirectories(root.resolve("dist"));
        Files.writeString(root.resolve("dist/main.js"), "");
        var entry = choose(pkg("""
                {"scripts": {"start": "nest start"}}"""), Stack.NESTJS);
        assertThat(entry.argv()).containsExactly("node", "dist/main");
        assertThat(entry.why()).contains("NestJS's compiled dist/main.js");
    }

    @Test
    void aRebuildingStartWithNothingCompiledToRunFailsTheBuildWithTheFix() throws IOException {
        var p = pkg("""
                {"scripts": {"start": "tsc && node dist/index.js"}}""");
        assertThatThrownBy(() -> choose(p, Stack.NONE)).isInstanceOf(BuildException.class)
                .hasMessageContaining("would build the app again in its read-only files")
                .hasMessageContaining("start:prod");
    }

    @Test
    void sveltekitAndNuxtStartTheirServerWhenThereIsNoStartScript() throws IOException {
        var p = pkg("{\"scripts\": {\"build\": \"vite build\"}}");
        assertThatThrownBy(() -> choose(p, Stack.SVELTEKIT)).hasMessageContaining("the build produced no build/index.js");
        Files.createDirectories(root.resolve("build"));
        Files.writeString(root.resolve("build/index.js"), "");
        assertThat(choose(p, Stack.SVELTEKIT).argv()).containsExactly("node", "build");
        Files.createDirectories(root.resolve(".output/server"));
        Files.writeString(root.resolve(".output/server/index.mjs"), "");
        assertThat(choose(p, Stack.NUXT).argv()).containsExactly("node", ".output/server/index.mjs");
        // a start script of the app's own wins
        assertThat(choose(pkg("{\"scripts\": {\"start\": \"node build/index.js\"}}"), Stack.SVELTEKIT).argv())
                .containsExactly("node", "build/index.js");
    }
}
