package dev.slipway.build.toolchain;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NodeVersionsTest {
    @TempDir
    Path dir;

    @Test
    void noRequestMeansTheSystemNode() throws IOException {
        Files.writeString(dir.resolve("package.json"), "{\"engines\": {\"npm\": \">=9\"}}");
        assertThat(NodeVersions.requested(dir)).isEmpty();
    }

    @Test
    void nodeVersionThenNvmrcThenEngines() throws IOException {
        Files.writeString(dir.resolve("package.json"), "{\"engines\": {\"node\": \">=18\"}}");
        assertThat(NodeVersions.requested(dir).orElseThrow().describe()).isEqualTo("engines.node >=18 in package.json");
        Files.writeString(dir.resolve(".nvmrc"), "# pinned\n\n  v20.11.1  \n");
        assertThat(NodeVersions.requested(dir).orElseThrow().describe()).isEqualTo(".nvmrc v20.11.1");
        Files.writeString(dir.resolve(".node-version"), "22\n");
        assertThat(NodeVersions.requested(dir).orElseThrow().describe()).isEqualTo(".node-version 22");
    }

    @Test
    void newestAliasesAreMappedAndLtsAliasesRefused() {
        assertThat(NodeVersions.range(new NodeVersions.Request("node", ".nvmrc")).test(new Semver.Version(26, 0, 0))).isTrue();
        assertThat(NodeVersions.range(new NodeVersions.Request("22.x", ".nvmrc")).test(new Semver.Version(22, 3, 0))).isTrue();
        assertThatThrownBy(() -> NodeVersions.range(new NodeVersions.Request("lts/*", ".nvmrc")))
                .hasMessage(".nvmrc asks for Node \"lts/*\", an alias Slipway does not resolve; write a version or range "
                        + "instead, such as 22 or ^20.11");
        assertThatThrownBy(() -> NodeVersions.range(new NodeVersions.Request("hydrogen", NodeVersions.ENGINES)))
                .hasMessageStartingWith("engines.node in package.json asks for Node \"hydrogen\", an alias");
        assertThatThrownBy(() -> NodeVersions.range(new NodeVersions.Request(">=18 && <20", ".node-version")))
                .hasMessageStartingWith(".node-version asks for Node \">=18 && <20\", which is not a version range");
    }
}
