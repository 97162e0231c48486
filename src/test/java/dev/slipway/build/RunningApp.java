package dev.slipway.build;

import dev.slipway.build.detect.CommandLine;

import dev.slipway.build.steps.CommandRunner;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Starts a built artifact the way the runtime will (argv with ${PORT} replaced, cwd = root) and reads GET /. */
final class RunningApp implements AutoCloseable {
    // HTTP/1.1 as the router speaks it: the default h2c upgrade header makes uvicorn answer 400 and next drop the connection
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    private final Process process;
    private final int port;
    private final Path output;

    private RunningApp(Process process, int port, Path output) {
        this.process = process;
        this.port = port;
        this.output = output;
    }

    static RunningApp start(Artifact artifact) throws IOException {
        int port = freePort();
        List<String> argv = artifact.startCommand().stream()
                .map(a -> a.replace(CommandLine.PORT_TOKEN, Integer.toString(port))).toList();
        Path output = Files.createTempFile("app-", ".log");
        ProcessBuilder pb = new ProcessBuilder(argv).directory(artifact.root().toFile())
                .redirectErrorStream(true).redirectOutput(output.toFile());
        pb.environment().clear();
        pb.environment().putAll(CommandRunner.baseEnvironment());
        pb.environment().put("PORT", Integer.toString(port));
        return new RunningApp(pb.start(), port, output);
    }

    /** GET / once the app answers, waiting up to the deadline; fails early if the app exits. */
    String awaitRoot(Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        Exception last = null;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) throw new AssertionError("the app exited with " + process.exitValue() + ":\n" + output());
            try {
                HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/"))
                        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) return r.body();
                last = new IllegalStateException("status " + r.statusCode());
            } catch (IOException e) {
                last = e;
            }
            process.waitFor(100, TimeUnit.MILLISECONDS); // poll interval, ends early if the app dies
        }
        throw new AssertionError("the app did not answer GET / within " + timeout + " (" + last + "):\n" + output());
    }

    String output() throws IOException {
        return Files.readString(output);
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Override
    public void close() throws IOException {
        CommandRunner.killTree(process.toHandle());
        Files.deleteIfExists(output);
    }
}
