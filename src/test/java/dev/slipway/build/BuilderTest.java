package dev.slipway.build;

import dev.slipway.build.steps.CommandRunner;
import dev.slipway.core.MicrosClock;
import dev.slipway.logs.Level;
import dev.slipway.store.Database;
import dev.slipway.store.Dialect;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.RecordingLog;
import dev.slipway.testing.TestStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Real builds of the fixture apps: npm from the registry, real vite and next builds, FastAPI from the system's packages. */
@EndToEnd
class BuilderTest {
    static TestStore testStore;
    static Database db;
    static BuildSettings config;
    static ArtifactStore store;
    static Builder builder;

    @TempDir
    Path sources;

    @BeforeAll
    static void open() {
        testStore = TestStore.create(Dialect.H2);
        db = Database.open(testStore.jdbcUrl(), 2);
        config = BuildSettings.defaults(testStore.dataDir());
        store = new ArtifactStore(db.jdbi(), config.artifactsDir());
        Clock clock = MicrosClock.system();
        builder = new Builder(config, new CommandRunner(clock), store, clock);
    }

    @AfterAll
    static void close() {
        db.close();
        testStore.close();
    }

    private static Artifact build(Path source, String framework, RecordingLog log) {
        return build(source, framework, Map.of(), Set.of(), log);
    }

    private static Artifact build(Path source, String framework, Map<String, String> env, Set<String> secrets, RecordingLog log) {
        try {
            Artifact a = builder.build(BuildRequest.of("prj_test", "0123456789abcdef0123", source, framework, env, secrets), log);
            System.out.println(a.framework() + ": " + log.messages().stream().filter(m -> m.startsWith("Build finished")).findFirst().orElse("?"));
            return a;
        } catch (BuildException e) {
            throw new AssertionError("build failed: " + e.getMessage() + "\n" + log.text(), e);
        }
    }

    private static void assertServes(Artifact artifact, String marker) throws Exception {
        try (RunningApp app = RunningApp.start(artifact)) {
            assertThat(app.awaitRoot(Duration.ofSeconds(60))).contains(marker);
        }
    }

    private static void assertRecordedAndFrozen(Artifact artifact, String file) throws IOException {
        assertThat(artifact.root()).isEqualTo(config.artifactsDir().resolve(artifact.id()));
        assertThat(artifact.id()).startsWith("art_");
        assertThat(store.find(artifact.id())).contains(artifact);
        assertThat(store.stats(artifact.id()).orElseThrow().buildDuration()).isPositive();
        assertThat(store.stats(artifact.id()).orElseThrow().sizeBytes()).isPositive();
        assertThat(Files.getPosixFilePermissions(artifact.root().resolve(file))).doesNotContain(PosixFilePermission.OWNER_WRITE);
        assertThat(Files.getPosixFilePermissions(artifact.root())).doesNotContain(PosixFilePermission.OWNER_WRITE);
        assertThat(workspaces()).isEmpty();
    }

    private static List<Path> workspaces() throws IOException {
        if (!Files.isDirectory(config.workspacesDir())) return List.of();
        try (Stream<Path> s = Files.list(config.workspacesDir())) {
            return s.toList();
        }
    }

    private static List<Path> artifactDirs() throws IOException {
        if (!Files.isDirectory(config.artifactsDir())) return List.of();
        try (Stream<Path> s = Files.list(config.artifactsDir())) {
            return s.toList();
        }
    }

    @Test
    void nodePlainWithExplicitFramework() throws Exception {
        RecordingLog log = new RecordingLog();
        Artifact a = build(Fixtures.copy("node-plain", sources), "node-express", log);
        assertThat(a.framework()).isEqualTo("node-express");
        assertThat(a.startCommand()).containsExactly("node", "server.js");
        assertThat(a.isStatic()).isFalse();
        assertThat(log.messages()).contains("Detected framework node-express (set on the project)",
                        "package.json declares no packages and no install script: nothing to install")
                .noneMatch(m -> m.startsWith("Running npm"));
        assertThat(log.entries()).anyMatch(e -> e.level() == Level.SUCCESS && e.message().startsWith("Build finished in "));
        assertRecordedAndFrozen(a, "server.js");
        assertServes(a, "fixture:node-plain");
    }

    @Test
    void anInstallScriptIsRunByNpmInstallEvenWithNoPackages() throws Exception {
        RecordingLog log = new RecordingLog();
        Path source = Fixtures.copy("node-plain", sources);
        Files.writeString(source.resolve("package.json"), """
                {"name": "fixture-node-plain", "version": "1.0.0", "private": true, "main": "server.js",
                 "scripts": {"start": "node server.js",
                             "postinstall": "node -e \\"require('fs').writeFileSync('installed.txt', 'by postinstall')\\""}}
                """);
        Artifact a = build(source, "node-express", log);
        assertThat(log.messages()).anyMatch(m -> m.startsWith("Running npm install --no-audit --no-fund"))
                .doesNotContain("package.json declares no packages and no install script: nothing to install");
        assertThat(a.root().resolve("installed.txt")).hasContent("by postinstall");
        assertServes(a, "fixture:node-plain");
    }

    @Test
    void expressWithLockfileUsesNpmCiAndTheCache() throws Exception {
        RecordingLog log = new RecordingLog();
        Path source = Fixtures.copy("express", sources);
        Artifact a = build(source, null, log);
        assertThat(a.framework()).isEqualTo("node-express");
        assertThat(log.messages()).contains("Detected framework node-express (package.json depends on express)")
                .anyMatch(m -> m.startsWith("Running npm ci --no-audit --no-fund"));
        assertThat(a.startCommand()).containsExactly("node", "app.js");
        assertThat(a.root().resolve("node_modules/express/package.json")).exists();
        assertThat(source.resolve("node_modules")).doesNotExist();
        try (Stream<Path> cache = Files.list(config.cacheDir("prj_test").resolve("npm"))) {
            assertThat(cache.toList()).isNotEmpty();
        }
        assertRecordedAndFrozen(a, "app.js");
        assertServes(a, "fixture:express");
    }

    @Test
    void viteReactBuildsAStaticSite() throws Exception {
        RecordingLog log = new RecordingLog();
        Artifact a = build(Fixtures.copy("vite-react", sources), null, log);
        assertThat(a.framework()).isEqualTo("react-vite");
        assertThat(log.messages()).contains("Detected framework react-vite (package.json depends on vite and react)")
                .contains("Running npm run build");
        assertThat(a.isStatic()).isTrue();
        assertThat(a.startCommand()).isEmpty();
        assertThat(a.staticRoot()).isEqualTo(a.root().resolve("dist"));
        String index = Files.readString(a.staticRoot().resolve("index.html"));
        assertThat(index).contains("<div id=\"root\"></div>").containsPattern("src=\"/assets/index-[^\"]+\\.js\"");
        try (Stream<Path> assets = Files.list(a.staticRoot().resolve("assets"))) {
            Path js = assets.filter(p -> p.toString().endsWith(".js")).findFirst().orElseThrow();
            assertThat(Files.readString(js)).contains("fixture:vite-react");
        }
        assertRecordedAndFrozen(a, "dist/index.html");
        // the artifact holds the site only: no node_modules, no sources
        try (Stream<Path> top = Files.list(a.root())) {
            assertThat(top.map(p -> p.getFileName().toString()).toList()).containsExactly("dist");
        }
        assertThat(log.messages()).anyMatch(m -> m.startsWith("Kept only the site: dropped "));
    }

    @Test
    void fastapiInstallsOfflineIntoAVenvInsideTheArtifact() throws Exception {
        RecordingLog log = new RecordingLog();
        Artifact a = build(Fixtures.copy("fastapi", sources), null, log);
        assertThat(a.framework()).isEqualTo("python-fastapi");
        assertThat(log.messages()).contains("Detected framework python-fastapi (requirements.txt lists fastapi)")
                .anyMatch(m -> m.startsWith("Running .venv/bin/python -m pip install --no-index -r requirements.txt"))
                .noneMatch(m -> m.contains("trying the package index"));
        assertThat(log.entries()).noneMatch(e -> e.level() == Level.ERROR);
        assertThat(a.startCommand()).containsExactly(a.root().resolve(".venv/bin/python").toString(), "-m", "uvicorn",
                "main:app", "--host", "127.0.0.1", "--port", "${PORT}");
        assertThat(Files.readString(a.root().resolve(".venv/pyvenv.cfg"))).contains("include-system-site-packages = true");
        assertRecordedAndFrozen(a, "main.py");
        assertServes(a, "fixture:fastapi version=1.0.0");
    }

    @Test
    void fastapiFromPyprojectDependencies() throws Exception {
        Path source = Fixtures.copy("fastapi", sources);
        Files.delete(source.resolve("requirements.txt"));
        Files.move(source.resolve("main.py"), source.resolve("server.py"));
        Files.writeString(source.resolve("pyproject.toml"), """
                [project]
                name = "svc"
                version = "1.0.0"
                dependencies = ["fastapi", "uvicorn"]
                """);
        RecordingLog log = new RecordingLog();
        Artifact a = build(source, null, log);
        assertThat(log.messages()).contains("Detected framework python-fastapi (pyproject.toml lists fastapi)")
                .noneMatch(m -> m.contains("trying the package index"));
        assertThat(Files.readString(a.root().resolve(".slipway-requirements.txt"))).isEqualTo("fastapi\nuvicorn\n");
        assertThat(a.startCommand()).contains("server:app");
        assertServes(a, "fixture:fastapi");
    }

    @Test
    void procfileWebLineOverridesTheStartCommand() throws Exception {
        Path source = Fixtures.copy("node-plain", sources);
        Files.writeString(source.resolve("other.js"), """
                const http = require("http");
                const [marker, flag, port] = process.argv.slice(2);
                http.createServer((req, res) => res.end(marker)).listen(Number(port), "127.0.0.1");
                """);
        Files.writeString(source.resolve("Procfile"), "web: node other.js 'fixture:procfile' --port $PORT\n");
        RecordingLog log = new RecordingLog();
        Artifact a = build(source, "node-express", log);
        assertThat(a.startCommand()).containsExactly("node", "other.js", "fixture:procfile", "--port", "${PORT}");
        assertThat(log.messages()).contains("Procfile web: line found; it overrides the start command");
        assertServes(a, "fixture:procfile");
    }

    @Test
    void appEnvAndDatabaseUrlReachTheBuildAndSecretsAreMasked() throws Exception {
        Path source = Fixtures.copy("node-plain", sources);
        Files.writeString(source.resolve("build.js"), """
                require("fs").writeFileSync("built.txt", process.env.DATABASE_URL + " " + process.env.FEATURE);
                console.log("building with " + process.env.DATABASE_URL);
                """);
        Files.writeString(source.resolve("package.json"), """
                {"name": "env", "version": "1.0.0", "scripts": {"build": "node build.js", "start": "node server.js"}}""");
        String url = "postgres://app:pw-9f8e7d@127.0.0.1/app";
        RecordingLog log = new RecordingLog();
        Artifact a = build(source, "node-express", Map.of("DATABASE_URL", url, "FEATURE", "on"), Set.of(url, "on"), log);
        assertThat(Files.readString(a.root().resolve("built.txt"))).isEqualTo(url + " on");
        assertThat(log.text()).doesNotContain("pw-9f8e7d").contains("building with ****");
    }

    @Test
    void aFailingBuildScriptFailsWithExitCodeAndLastLinesAndLeavesNothing() throws Exception {
        Path source = Fixtures.copy("node-plain", sources);
        Files.writeString(source.resolve("fail.js"), """
                for (let i = 1; i <= 25; i++) console.log("compiling module " + i);
                console.error("Error: module 25 is broken");
                process.exit(1);
                """);
        Files.writeString(source.resolve("package.json"), """
                {"name": "broken", "version": "1.0.0", "scripts": {"build": "node fail.js"}}""");
        List<Path> before = artifactDirs();
        RecordingLog log = new RecordingLog();
        assertThatThrownBy(() -> builder.build(BuildRequest.of("prj_fail", null, source, "node-express", Map.of(), Set.of()), log))
                .isInstanceOfSatisfying(BuildException.class, e -> {
                    assertThat(e.getMessage()).isEqualTo("npm run build failed with exit code 1: Error: module 25 is broken");
                    assertThat(e.exitCode()).isEqualTo(1);
                    assertThat(e.lastLines()).contains("compiling module 25", "Error: module 25 is broken");
                });
        assertThat(log.entries()).contains(
                new RecordingLog.Entry(Level.ERROR, "  Error: module 25 is broken"),
                new RecordingLog.Entry(Level.ERROR, "  compiling module 24"),
                new RecordingLog.Entry(Level.ERROR, "Build failed: npm run build failed with exit code 1: Error: module 25 is broken"));
        assertThat(store.listForProject("prj_fail")).isEmpty();
        assertThat(artifactDirs()).containsExactlyInAnyOrderElementsOf(before);
        assertThat(workspaces()).isEmpty();
    }

    @Test
    void aRefusedProcfileIsReportedWithSecretsMasked() throws Exception {
        Path source = Fixtures.copy("node-plain", sources);
        Files.writeString(source.resolve("Procfile"), "web: node server.js --key sk_live_12345 | tee out.log\n");
        RecordingLog log = new RecordingLog();
        assertThatThrownBy(() -> builder.build(BuildRequest.of("prj_proc", null, source, "node-express", Map.of("KEY", "sk_live_12345"),
                Set.of("sk_live_12345")), log))
                .isInstanceOf(BuildException.class)
                .hasMessageContaining("--key ****")
                .hasMessageContaining("the shell operator '|'")
                .hasMessageNotContaining("sk_live_12345");
        assertThat(log.text()).doesNotContain("sk_live_12345").contains("Build failed: start command");
        assertThat(workspaces()).isEmpty();
    }

    @Test
    void nothingDetectedIsLoggedAndLeavesNothing(@TempDir Path empty) throws Exception {
        Files.writeString(empty.resolve("README.md"), "hello");
        RecordingLog log = new RecordingLog();
        List<Path> before = artifactDirs();
        assertThatThrownBy(() -> builder.build(BuildRequest.of("prj_none", null, empty, null, Map.of(), Set.of()), log))
                .isInstanceOf(BuildException.class).hasMessageStartingWith("could not detect the framework");
        assertThat(log.entries()).anyMatch(e -> e.level() == Level.ERROR && e.message().startsWith("Build failed: could not detect"));
        assertThat(artifactDirs()).containsExactlyInAnyOrderElementsOf(before);
        assertThat(workspaces()).isEmpty();
    }
}
