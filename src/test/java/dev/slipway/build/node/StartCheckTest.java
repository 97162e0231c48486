package dev.slipway.build.node;

import dev.slipway.build.steps.CommandRunner;
import dev.slipway.build.steps.Steps;
import dev.slipway.logs.LogSink;
import dev.slipway.testing.EndToEnd;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The build's trial start of a pruned app (a real node process, unconfined). */
@EndToEnd
class StartCheckTest {
    @TempDir
    Path tmp;

    private final List<String> log = new ArrayList<>();
    private final LogSink sink = (level, message) -> log.add(level + " " + message);

    /** An app that migrates its database on start: the trial start must not reach that database. */
    @Test
    void theTrialStartNeverGetsTheAppsDatabase() throws IOException {
        Path app = Files.createDirectories(tmp.resolve("app"));
        Path touched = tmp.resolve("database-touched");
        Files.writeString(app.resolve("server.js"), """
                const fs = require("fs");
                if (process.env.DATABASE_URL) fs.writeFileSync(process.env.MARKER, process.env.DATABASE_URL);
                require("http").createServer((q, r) => r.end("ok")).listen(Number(process.env.PORT), "127.0.0.1");
                """);
        Map<String, String> env = new HashMap<>(CommandRunner.baseEnvironment());
        env.put("DATABASE_URL", "postgres://app:secret@127.0.0.1:5432/app");
        env.put("MARKER", touched.toString());
        Steps steps = new Steps(new CommandRunner(Clock.systemUTC()), env, Set.of(), Duration.ofMinutes(2), null);

        assertThat(StartCheck.run(steps, app, List.of("node", "server.js"), tmp.resolve("check"), sink)).isEmpty();
        assertThat(log).anyMatch(m -> m.contains("slipway-start-check: it answered HTTP 200"));
        assertThat(touched).doesNotExist();
    }
}
