package dev.slipway.build;

import dev.slipway.build.steps.CommandRunner;
import dev.slipway.core.MicrosClock;
import dev.slipway.store.Database;
import dev.slipway.store.Dialect;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.RecordingLog;
import dev.slipway.testing.TestStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** Real failing builds: the failure reason names the cause the tool printed, not its usage text or a tail of noise. */
@EndToEnd
class FailureReasonsTest {
    static TestStore testStore;
    static Database db;
    static Builder builder;

    @TempDir
    Path sources;

    @BeforeAll
    static void open() {
        testStore = TestStore.create(Dialect.H2);
        db = Database.open(testStore.jdbcUrl(), 2);
        BuildSettings config = BuildSettings.defaults(testStore.dataDir());
        Clock clock = MicrosClock.system();
        builder = new Builder(config, new CommandRunner(clock), new ArtifactStore(db.jdbi(), config.artifactsDir()), clock);
    }

    @AfterAll
    static void close() {
        db.close();
        testStore.close();
    }

    private static String reason(Path source, RecordingLog log) {
        BuildException e = catchThrowableOfType(BuildException.class,
                () -> builder.build(BuildRequest.of("prj_reasons", null, source, null, Map.of(), Set.of()), log));
        assertThat(e).as(log.text()).isNotNull();
        return e.getMessage();
    }

    @Test
    void npmCiOutOfSyncSaysSoAndNotItsUsageText() throws Exception {
        Path source = Fixtures.copy("express", sources);
        String pkg = Files.readString(source.resolve("package.json"));
        Files.writeString(source.resolve("package.json"), pkg.replace("\"dependencies\": {", "\"dependencies\": {\"left-pad\": \"1.3.0\", "));
        RecordingLog log = new RecordingLog();
        String reason = reason(source, log);
        assertThat(reason).as(log.text()).startsWith("npm ci").contains("in sync").contains("Missing: left-pad@1.3.0 from lock file")
                .doesNotContain("Usage").doesNotContain("Clean install");
        assertThat(log.messages()).anyMatch(m -> m.startsWith("The cause, as it printed it: ") && m.contains("in sync"));
    }

    @Test
    void typescriptNamesTheTypeErrorAboveTheNoise() throws Exception {
        Path source = Fixtures.copy("broken-ts", sources);
        RecordingLog log = new RecordingLog();
        String reason = reason(source, log);
        assertThat(reason).as(log.text()).startsWith("npm run build failed with exit code")
                .contains("src/index.ts(1,7): error TS2322: Type 'string' is not assignable to type 'number'.");
    }

    @Test
    void pythonGivesTheExceptionLineOfItsTraceback() throws Exception {
        Files.writeString(sources.resolve("pyproject.toml"), "[project]\nname = \"x\"\ndependencies = [\"fastapi\",\n");
        Files.writeString(sources.resolve("main.py"), "from fastapi import FastAPI\napp = FastAPI()\n");
        RecordingLog log = new RecordingLog();
        String reason = reason(sources, log);
        assertThat(reason).as(log.text()).contains("TOMLDecodeError");
    }
}
