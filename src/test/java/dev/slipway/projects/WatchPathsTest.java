package dev.slipway.projects;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class WatchPathsTest {
    @Test
    void aPlainNameIsAFileOrAFolderAndEverythingUnderIt() {
        assertThat(WatchPaths.matchesAny(List.of("apps/web"), List.of("apps/web/src/a.ts"))).isTrue();
        assertThat(WatchPaths.matchesAny(List.of("apps/web"), List.of("apps/web"))).isTrue();
        assertThat(WatchPaths.matchesAny(List.of("apps/web/"), List.of("apps/web/x"))).isTrue();
        assertThat(WatchPaths.matchesAny(List.of("apps/web"), List.of("apps/website/a.ts", "apps/api/x"))).isFalse();
    }

    @Test
    void globsMatchAsTheJdksGlobsDo() {
        assertThat(WatchPaths.matchesAny(List.of("services/api/**"), List.of("services/api/cmd/main.go"))).isTrue();
        assertThat(WatchPaths.matchesAny(List.of("*.go"), List.of("main.go"))).isTrue();
        assertThat(WatchPaths.matchesAny(List.of("*.go"), List.of("cmd/main.go"))).as("* stays in one folder").isFalse();
        assertThat(WatchPaths.matchesAny(List.of("**/*.{ts,tsx}"), List.of("docs/readme.md", "web/src/app.tsx"))).isTrue();
        assertThat(WatchPaths.matchesAny(List.of("docs/**"), List.of("README.md"))).isFalse();
        assertThat(WatchPaths.matchesAny(List.of("a/**"), List.of("a/\u0000b"))).as("a path no file system takes").isFalse();
    }

    @Test
    void withoutWatchPathsTheRootDirectoryIsWatchedElseEverything() {
        assertThat(WatchPaths.effective(List.of("x/**"), "apps/web")).containsExactly("x/**");
        assertThat(WatchPaths.effective(List.of(), "apps/web")).containsExactly("apps/web");
        assertThat(WatchPaths.effective(List.of(), null)).isEmpty();
    }

    @Test
    void escapesAbsolutePathsAndBrokenGlobsAreRefused() {
        assertThat(WatchPaths.problem("apps/web/**")).isEmpty();
        assertThat(WatchPaths.problem("../secrets")).isPresent();
        assertThat(WatchPaths.problem("a/../../b")).isPresent();
        assertThat(WatchPaths.problem("/etc/passwd")).isPresent();
        assertThat(WatchPaths.problem("a{b")).isPresent();
        assertThat(WatchPaths.problem("$(id)")).isPresent();
        assertThat(WatchPaths.problem("x".repeat(256))).isPresent();
        assertThat(WatchPaths.problem("")).isPresent();
    }
}
