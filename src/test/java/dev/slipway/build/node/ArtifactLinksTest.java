package dev.slipway.build.node;

import dev.slipway.build.BuildException;
import dev.slipway.build.steps.CommandRunner;
import dev.slipway.build.PackageJson;
import dev.slipway.build.steps.Steps;
import dev.slipway.build.toolchain.PackageManager;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;
import dev.slipway.testing.EndToEnd;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * After the build the server, as root, moves and deletes files in a tree the tenant's build wrote. A hostile
 * build leaves symbolic links there to another tenant's artifact; the server must follow none of them: the
 * victim's files stay as they were, and the attacker's artifact never becomes the victim's.
 */
@EndToEnd
class ArtifactLinksTest {
    @TempDir
    Path tmp;

    private final List<String> log = new ArrayList<>();
    private final LogSink sink = (level, message) -> log.add(level + " " + message);

    /** Another project's artifact: a standalone Next server of its own, and its packages. */
    private Path victim() throws IOException {
        Path victim = tmp.resolve("artifacts/art_victim");
        Files.createDirectories(victim.resolve(".next/static/chunks"));
        Files.writeString(victim.resolve("server.js"), "victim's server\n");
        Files.writeString(victim.resolve(".next/static/chunks/app.js"), "victim's chunk\n");
        Files.createDirectories(victim.resolve("node_modules/secret"));
        Files.writeString(victim.resolve("node_modules/secret/index.js"), "victim's package\n");
        Files.createDirectories(victim.resolve(".yarn/cache"));
        Files.writeString(victim.resolve(".yarn/cache/secret.zip"), "victim's zip\n");
        return victim;
    }

    private Path attacker() throws IOException {
        Path root = tmp.resolve("artifacts/art_attacker");
        Files.createDirectories(root.resolve(".next/static/chunks"));
        Files.writeString(root.resolve(".next/static/chunks/evil.js"), "attacker's chunk\n");
        Files.writeString(root.resolve("package.json"), "{}");
        return root;
    }

    private static void assertUntouched(Path victim) throws IOException {
        assertThat(Files.readString(victim.resolve("server.js"))).isEqualTo("victim's server\n");
        assertThat(Files.readString(victim.resolve(".next/static/chunks/app.js"))).isEqualTo("victim's chunk\n");
        assertThat(victim.resolve(".next/static/chunks/evil.js")).doesNotExist();
        assertThat(Files.readString(victim.resolve("node_modules/secret/index.js"))).isEqualTo("victim's package\n");
        assertThat(Files.readString(victim.resolve(".yarn/cache/secret.zip"))).isEqualTo("victim's zip\n");
    }

    @Test
    void aStandaloneFolderThatLinksToAnotherArtifactIsNotAdopted() throws IOException {
        Path victim = victim();
        Path root = attacker();
        Files.createSymbolicLink(root.resolve(".next/standalone"), victim);

        assertThat(NextStandalone.adopt(root, root, sink)).isFalse();
        assertThat(log).anyMatch(m -> m.startsWith(Level.WARNING + " ") && m.contains("symbolic link"));
        assertThat(Files.isSymbolicLink(root)).isFalse();
        assertThat(root.resolve(".next/static/chunks/evil.js")).isRegularFile();
        assertUntouched(victim);
    }

    @Test
    void aStandaloneServerWhoseNextFolderLinksElsewhereFailsTheBuild() throws IOException {
        Path victim = victim();
        Path root = attacker();
        Path server = Files.createDirectories(root.resolve(".next/standalone"));
        Files.writeString(server.resolve("server.js"), "attacker's server\n");
        Files.createSymbolicLink(server.resolve(".next"), victim.resolve(".next"));

        assertThatThrownBy(() -> NextStandalone.adopt(root, root, sink)).isInstanceOf(BuildException.class)
                .hasMessageContaining("symbolic link");
        assertUntouched(victim);
    }

    @Test
    void installedPackagesReachedThroughALinkAreNeitherSnapshotNorPruned() throws IOException {
        Path victim = victim();
        Path root = attacker();
        PackageJson pkg = new PackageJson(Map.of("express", "^5"), Map.of("typescript", "^5"), Map.of(), null);

        Files.createSymbolicLink(root.resolve("node_modules"), victim.resolve("node_modules"));
        new DevDependencies(null, new PackageManager(PackageManager.Kind.NPM, true, null), tmp.resolve("work/npm"))
                .prune(root, root, pkg, List.of("node", "server.js"), sink);
        Files.delete(root.resolve("node_modules"));

        Files.createSymbolicLink(root.resolve(".yarn"), victim.resolve(".yarn"));
        new DevDependencies(null, new PackageManager(PackageManager.Kind.YARN_BERRY, true, Path.of("/y/bin/yarn")),
                tmp.resolve("work/berry")).prune(root, root, pkg, List.of("node", "server.js"), sink);

        assertThat(log).filteredOn(m -> m.contains("Dev dependencies kept") && m.contains("symbolic link")).hasSize(2);
        assertThat(tmp.resolve("work")).doesNotExist();
        assertUntouched(victim);
    }

    /**
     * The start check runs the tenant's app in its artifact: a hostile one swaps its node_modules for a link to
     * the victim's before it answers. The server must not measure, keep or restore through that link. The
     * prune itself is a program that does nothing here (the machine's {@code true}): the app's start is what
     * this test is about.
     */
    @Test
    void anAppThatSwapsItsPackagesForALinkDuringTheStartCheckFailsTheBuild() throws IOException {
        Path victim = victim();
        Path root = attacker();
        Files.createDirectories(root.resolve("node_modules/typescript"));
        Files.writeString(root.resolve("node_modules/typescript/index.js"), "dev tool\n");
        Files.writeString(root.resolve("swap.js"), """
                const fs = require("fs");
                fs.rmSync("node_modules", { recursive: true });
                fs.symlinkSync(process.env.VICTIM_MODULES, "node_modules");
                require("http").createServer((q, r) => r.end("ok")).listen(Number(process.env.PORT), "127.0.0.1");
                """);
        Map<String, String> env = new HashMap<>(CommandRunner.baseEnvironment());
        env.put("VICTIM_MODULES", victim.resolve("node_modules").toString());
        Steps steps = new Steps(new CommandRunner(Clock.systemUTC()), env, Set.of(),
                Duration.ofMinutes(2), null);
        Path program = Path.of(Files.isExecutable(Path.of("/usr/bin/true")) ? "/usr/bin/true" : "/bin/true");
        PackageJson pkg = new PackageJson(Map.of(), Map.of("typescript", "^5"), Map.of(), null);

        assertThatThrownBy(() -> new DevDependencies(steps, new PackageManager(PackageManager.Kind.NPM, true, program),
                tmp.resolve("work")).prune(root, root, pkg, List.of("node", "swap.js"), sink))
                .isInstanceOf(BuildException.class).hasMessageContaining("symbolic link at node_modules");
        assertThat(log).anyMatch(m -> m.contains("slipway-start-check: it answered HTTP 200"));
        assertThat(tmp.resolve("work")).doesNotExist();
        assertUntouched(victim);
        assertThat(victim.resolve("node_modules/typescript")).doesNotExist();
    }
}
