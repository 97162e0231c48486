package dev.slipway.build.docker;

import dev.slipway.testing.RecordingLog;
import dev.slipway.testing.TestStore;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The app's variables a Dockerfile's ARGs declare, handed to buildah through its environment, never an argv. */
class BuildArgumentsTest {
    private static final DockerfileText DOCKERFILE = DockerfileText.parse("""
            ARG VERSION
            FROM scratch
            ARG GREETING=hi LD_PRELOAD PATH XDG_CONFIG_HOME
            """);

    @Test
    void onlyDeclaredVariablesAreArgumentsAndBuildahsOwnNamesAreRefusedAloud() {
        RecordingLog log = new RecordingLog();
        Map<String, String> variables = Map.of("VERSION", "1.2", "GREETING", "hello", "API_TOKEN", "secret",
                "LD_PRELOAD", "/tmp/x.so", "PATH", "/evil", "XDG_CONFIG_HOME", "/elsewhere");
        assertThat(BuildArguments.of(DOCKERFILE, variables, log)).containsExactly(Map.entry("VERSION", "1.2"), Map.entry("GREETING", "hello"));
        assertThat(log.messages()).containsExactly(
                "The variable LD_PRELOAD is not given to the build as an argument: the name is buildah's own; its ARG keeps its default",
                "The variable PATH is not given to the build as an argument: the name is buildah's own; its ARG keeps its default",
                "The variable XDG_CONFIG_HOME is not given to the build as an argument: the name is buildah's own; its ARG keeps its default");
    }

    @Test
    void theFileGivesAShellEveryValueExactlyAndNoCommandLineHoldsOne() throws Exception {
        Path dir = Files.createTempDirectory("slipway-args-");
        try {
            Map<String, String> arguments = new LinkedHashMap<>();
            arguments.put("QUOTES", "it's \"quoted\" $(id) `id` \\ $HOME");
            arguments.put("LINES", "one\ntwo\n");
            arguments.put("EMPTY", "");
            Path file = BuildArguments.write(dir.resolve("arguments"), arguments);
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
            List<String> argv = BuildArguments.withArguments(file, List.of("/usr/bin/env"));
            assertThat(String.join(" ", argv)).doesNotContain("quoted").doesNotContain("two");
            Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
            String env = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor()).isZero();
            assertThat(env).contains("QUOTES=it's \"quoted\" $(id) `id` \\ $HOME\n", "LINES=one\ntwo\n\n", "EMPTY=\n");
        } finally {
            TestStore.deleteTree(dir);
        }
    }
}
