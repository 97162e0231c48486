package dev.slipway.testing;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** A test JVM ended as Ctrl-C or a cancelled CI job ends {@code ./slipway test}: its servers' apps do not outlive it. */
@EndToEnd
class TestServerAtExitTest {
    @Test
    void anInterruptedTestJvmStopsTheAppsOfItsServers() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> command = new ArrayList<>(List.of(java.toString(), "-cp", System.getProperty("java.class.path"),
                HeldServer.class.getName()));
        Process jvm = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            long appPid = appPid(jvm);
            assertThat(ProcessHandle.of(appPid)).as("the app runs").hasValueSatisfying(p -> assertThat(p.isAlive()).isTrue());

            // SIGTERM, which runs the same shutdown as Ctrl-C's SIGINT; a run started in the background (CI) ignores SIGINT
            jvm.destroy();
            assertThat(jvm.waitFor(60, TimeUnit.SECONDS)).as("the JVM ends on SIGTERM").isTrue();
            Await.until(Duration.ofSeconds(30), "the app stopped with its JVM",
                    () -> ProcessHandle.of(appPid).map(p -> !p.isAlive()).orElse(true));
        } finally {
            jvm.destroyForcibly();
        }
    }

    /**
     * The pid the held server prints once its app runs (everything before it is the server's start). Its lines are read
     * on a thread of their own: a held server that fails to start keeps running without printing, and the test must
     * fail with what it printed, not wait on it forever.
     */
    private static long appPid(Process jvm) throws Exception {
        BufferedReader out = new BufferedReader(new InputStreamReader(jvm.getInputStream(), StandardCharsets.UTF_8));
        List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.concurrent.CompletableFuture<Long> pid = new java.util.concurrent.CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                for (String line; (line = out.readLine()) != null; ) {
                    if (line.startsWith("app-pid ")) pid.complete(Long.parseLong(line.substring("app-pid ".length()).strip()));
                    else seen.add(line);
                }
            } catch (Exception ignored) {
                // the JVM went away
            }
            pid.completeExceptionally(new AssertionError("the held server ended without an app pid"));
        });
        try {
            return pid.get(90, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new AssertionError("the held server printed no app pid within 90 s: " + String.join("\n", seen), e);
        }
    }
}
