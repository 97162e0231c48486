package dev.slipway.build.steps;

import dev.slipway.build.BuildException;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;
import dev.slipway.testing.Await;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.RecordingLog;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@EndToEnd
class CommandRunnerTest {
    @TempDir
    Path dir;

    private final CommandRunner runner = new CommandRunner(Clock.systemUTC());

    private CommandRunner.Command node(String script, String... args) {
        List<String> argv = new ArrayList<>(List.of("node", "-e", script));
        argv.addAll(List.of(args));
        return CommandRunner.Command.of(argv, dir, CommandRunner.baseEnvironment());
    }

    @Test
    void stdoutLinesArriveInOrderAsInfo() {
        RecordingLog log = new RecordingLog();
        var result = runner.run(node("for (let i = 0; i < 300; i++) console.log('line ' + i)"), log);
        assertThat(result.exitCode()).isZero();
        assertThat(log.entries().get(0).message()).startsWith("Running node -e");
        List<RecordingLog.Entry> output = log.entries().subList(1, log.entries().size());
        assertThat(output).extracting(RecordingLog.Entry::message)
                .containsExactlyElementsOf(IntStream.range(0, 300).mapToObj(i -> "line " + i).toList());
        assertThat(output).extracting(RecordingLog.Entry::level).containsOnly(Level.INFO);
    }

    @Test
    void theRunningEntryIsStoredWhileTheCommandAlreadyStartsAndStillComesFirst() {
        RecordingLog log = new RecordingLog();
        Path started = dir.resolve("started");
        // a store that is slow to take the entry: the command must not wait for it to start
        LogSink slowStore = (level, message) -> {
            if (message.startsWith("Running ")) {
                Await.until(Duration.ofSeconds(20), "the command started before its entry was stored",
                        () -> Files.exists(started));
            }
            log.log(level, message);
        };
        runner.run(node("require('fs').writeFileSync('started', '1'); console.log('first line')"), slowStore);
        assertThat(log.messages()).containsExactly(log.messages().get(0), "first line");
        assertThat(log.messages().get(0)).startsWith("Running node -e");
    }

    @Test
    void aLogSinkThatFailsLosesItsLinesButNeverStallsTheCommand() {
        RecordingLog log = new RecordingLog();
        AtomicInteger failures = new AtomicInteger();
        LogSink flaky = (level, message) -> {
            // the store goes away for the middle of the output: far more than a pipe's 64 KiB
            if (message.startsWith("line ") && Integer.parseInt(message.substring(5, message.indexOf(' ', 5))) % 1000 < 900) {
                failures.incrementAndGet();
                throw new IllegalStateException("store unreachable");
            }
            log.log(level, message);
        };
        var result = runner.run(node("const pad = 'x'.repeat(200); for (let i = 0; i < 5000; i++) console.log('line ' + i + ' ' + pad)")
                .withTimeout(Duration.ofSeconds(60)), flaky);
        assertThat(result.exitCode()).isZero();
        assertThat(failures.get()).isEqualTo(4500);
        assertThat(log.messages()).filteredOn(m -> m.startsWith("line ")).hasSize(500).last().asString().startsWith("line 4999 ");
    }

    @Test
    void stderrIsInfoUnlessItClearlySaysErrorOrWarning() {
        RecordingLog log = new RecordingLog();
        runner.run(node("""
                console.error('added 68 packages in 3s');
                console.error('npm warn deprecated inflight@1.0.6');
                console.error('npm error code E404');
                console.error('Error: Cannot find module x');
                console.log('Error: on stdout stays info');
                """), log);
        assertThat(log.entries()).contains(
                new RecordingLog.Entry(Level.INFO, "added 68 packages in 3s"),
                new RecordingLog.Entry(Level.WARNING, "npm warn deprecated inflight@1.0.6"),
                new RecordingLog.Entry(Level.ERROR, "npm error code E404"),
                new RecordingLog.Entry(Level.ERROR, "Error: Cannot find module x"),
                new RecordingLog.Entry(Level.INFO, "Error: on stdout stays info"));
    }

    @Test
    void linesAreDeliveredWhileTheCommandIsStillRunning() throws Exception {
        RecordingLog log = new RecordingLog();
        Path gate = dir.resolve("gate");
        // prints "first", then waits until the test has seen it in the log and opens the gate
        var run = CompletableFuture.supplyAsync(() -> runner.run(node("""
                console.log('first');
                const fs = require('fs');
                const t = setInterval(() => { if (fs.existsSync(process.argv[1])) { clearInterval(t); console.log('second'); } }, 20);
                """, gate.toString()).withTimeout(Duration.ofSeconds(30)), log));
        log.await(Duration.ofSeconds(20), "the first line", e -> e.message().equals("first"));
        assertThat(run).isNotDone();
        assertThat(log.messages()).doesNotContain("second");
        Files.writeString(gate, "open");
        assertThat(run.get(30, TimeUnit.SECONDS).exitCode()).isZero();
        assertThat(log.messages()).containsSubsequence("first", "second");
    }

    @Test
    void failureCarriesCommandExitCodeAndLastLines() {
        RecordingLog log = new RecordingLog();
        assertThatThrownBy(() -> runner.run(node("for (let i = 0; i < 30; i++) console.log('out ' + i); process.exit(3)"), log))
                .isInstanceOfSatisfying(BuildException.class, e -> {
                    assertThat(e.getMessage()).startsWith("node -e").endsWith("failed with exit code 3");
                    assertThat(e.exitCode()).isEqualTo(3);
                    assertThat(e.lastLines()).hasSize(CommandRunner.LAST_LINES)
                            .startsWith("out 10").endsWith("out 29");
                });
        List<RecordingLog.Entry> errors = log.entries().stream().filter(e -> e.level() == Level.ERROR).toList();
        assertThat(errors.get(0).message()).contains("failed with exit code 3; its last 20 lines:");
        assertThat(errors.subList(1, errors.size())).extracting(RecordingLog.Entry::message)
                .containsExactlyElementsOf(IntStream.range(10, 30).mapToObj(i -> "  out " + i).toList());
    }

    @Test
    void theLastStderrLinesSurviveALaterBurstOfStdout() {
        assertThatThrownBy(() -> runner.run(node("""
                console.error('Error: the real cause');
                for (let i = 0; i < 40; i++) console.log('out ' + i);
                process.exit(1);
                """), new RecordingLog()))
                // the two pipes are read by two threads: which of them delivers its line last is the scheduler's choice
                .isInstanceOfSatisfying(BuildException.class, e -> assertThat(e.lastLines())
                        .hasSize(CommandRunner.LAST_LINES).contains("Error: the real cause", "out 39"));
    }

    @Test
    void aFailedAttemptIsLoggedAsWarningsOnly() {
        RecordingLog log = new RecordingLog();
        assertThatThrownBy(() -> runner.run(node("console.error('ERROR: no matching distribution'); process.exit(1)").asAttempt(), log))
                .isInstanceOf(BuildException.class).hasMessageContaining("exit code 1");
        assertThat(log.entries()).noneMatch(e -> e.level() == Level.ERROR)
                .contains(new RecordingLog.Entry(Level.WARNING, "ERROR: no matching distribution"))
                .anyMatch(e -> e.level() == Level.WARNING && e.message().contains("failed with exit code 1"));
    }

    @Test
    void aProgramThatDoesNotExistIsABuildException() {
        assertThatThrownBy(() -> runner.run(CommandRunner.Command.of(List.of("no-such-program-xyz"), dir,
                CommandRunner.baseEnvironment()), new RecordingLog()))
                .isInstanceOf(BuildException.class).hasMessageContaining("cannot run no-such-program-xyz");
    }

    @Test
    void timeoutKillsTheWholeProcessTree() throws Exception {
        RecordingLog log = new RecordingLog();
        // the command starts a grandchild-holding child that outlives it unless killed, and prints its pid
        String script = """
                const { spawn } = require('child_process');
                const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
                console.log('child ' + child.pid);
                setInterval(() => {}, 1000);
                """;
        long started = System.nanoTime();
        assertThatThrownBy(() -> runner.run(node(script).withTimeout(Duration.ofSeconds(3)), log))
                .isInstanceOfSatisfying(BuildException.class, e -> {
                    assertThat(e.getMessage()).contains("timed out after 3.0 s").contains("and 1 child process");
                    assertThat(e.exitCode()).isNull();
                });
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(20));
        long childPid = Long.parseLong(log.messages().stream().filter(m -> m.startsWith("child ")).findFirst()
                .orElseThrow().substring(6));
        var child = ProcessHandle.of(childPid);
        if (child.isPresent()) child.get().onExit().get(10, TimeUnit.SECONDS);
        assertThat(ProcessHandle.of(childPid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
        assertThat(log.entries()).anyMatch(e -> e.level() == Level.ERROR && e.message().contains("timed out"));
    }

    @Test
    void secretValuesAreMaskedInOutputAndMessages() {
        RecordingLog log = new RecordingLog();
        Map<String, String> env = new HashMap<>(CommandRunner.baseEnvironment());
        env.put("DATABASE_URL", "postgres://app:s3cret-pw@db/app");
        env.put("API_TOKEN", "tok_ABCDEF123");
        env.put("DEBUG", "1");
        var command = new CommandRunner.Command(List.of("node", "-e", """
                console.log('db=' + process.env.DATABASE_URL);
                console.error('token ' + process.env.API_TOKEN + ' debug=' + process.env.DEBUG);
                console.log('password only: s3cret-pw');
                process.exit(2);
                """, "tok_ABCDEF123"), dir, env, Duration.ofSeconds(30),
                Set.of("postgres://app:s3cret-pw@db/app", "s3cret-pw", "tok_ABCDEF123", "1"));
        assertThatThrownBy(() -> runner.run(command, log)).isInstanceOfSatisfying(BuildException.class, e -> {
            assertThat(e.getMessage()).doesNotContain("tok_ABCDEF123").contains("****");
            assertThat(e.lastLines()).noneMatch(l -> l.contains("s3cret"));
        });
        assertThat(log.text()).doesNotContain("s3cret").doesNotContain("tok_ABCDEF123")
                .contains("db=****").contains("token **** debug=1").contains("password only: ****");
    }

    @Test
    void aSecretAtTheLineCutIsMaskedWhole() {
        RecordingLog log = new RecordingLog();
        String secret = "tok_0123456789abcdef";
        // the secret straddles the cut at MAX_LINE characters, at several offsets, in one long line
        StringBuilder script = new StringBuilder();
        for (int offset : new int[] {1, 7, 19}) {
            script.append("process.stdout.write('x'.repeat(").append(CommandRunner.MAX_LINE - offset)
                    .append(") + process.env.TOKEN + ' tail\\n');");
        }
        runner.run(new CommandRunner.Command(List.of("node", "-e", script.toString()), dir,
                Map.of("PATH", CommandRunner.baseEnvironment().get("PATH"), "TOKEN", secret), Duration.ofSeconds(30),
                Set.of(secret)), log);
        assertThat(log.text()).doesNotContain(secret).doesNotContain("tok_012").doesNotContain("9abcdef")
                .contains("****");
    }

    @Test
    void aSecretPrintedInHalvesOnTwoLinesIsMaskedInBoth() {
        RecordingLog log = new RecordingLog();
        String secret = "tok_0123456789abcdef";
        runner.run(new CommandRunner.Command(List.of("node", "-e",
                "const t = process.env.TOKEN; console.log('token ' + t.slice(0, 8)); console.log(t.slice(8) + ' rest');"),
                dir, Map.of("PATH", CommandRunner.baseEnvironment().get("PATH"), "TOKEN", secret), Duration.ofSeconds(30),
                Set.of(secret)), log);
        assertThat(log.text()).doesNotContain("tok_0123").doesNotContain("456789abcdef").contains("token ****")
                .contains("**** rest");
    }

    @Test
    void theEnvironmentIsExactlyTheOneGiven() {
        RecordingLog log = new RecordingLog();
        Map<String, String> env = new HashMap<>(CommandRunner.baseEnvironment());
        env.put("APP_SETTING", "on");
        runner.run(CommandRunner.Command.of(List.of("node", "-e",
                "console.log('keys ' + Object.keys(process.env).sort().join(','))"), dir, env), log);
        assertThat(log.messages()).contains("keys APP_SETTING,HOME,LANG,PATH");
    }
}
