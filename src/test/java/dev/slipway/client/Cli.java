package dev.slipway.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.Main;
import dev.slipway.core.Json;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs the slipway launcher in-process, as a CI job would run it, and keeps what it printed. */
final class Cli {
    record Result(int exit, String out, String err, Duration took) {
        JsonNode json() {
            try {
                return Json.MAPPER.readTree(out);
            } catch (Exception e) {
                throw new AssertionError("stdout is not one JSON document:\n" + this, e);
            }
        }

        @Override
        public String toString() {
            return "exit " + exit + " after " + took.toMillis() + " ms\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    private Cli() {}

    /** A command still running (a follow): what it has printed so far, and its exit code once it ends. */
    record Running(ByteArrayOutputStream out, ByteArrayOutputStream err, Thread thread, CompletableFuture<Integer> exit) {
        String outSoFar() {
            return out.toString(StandardCharsets.UTF_8);
        }

        String errSoFar() {
            return err.toString(StandardCharsets.UTF_8);
        }

        /** Interrupts it, as Ctrl-C does, and waits for it to end. */
        int stop() throws Exception {
            thread.interrupt();
            return exit.get(30, TimeUnit.SECONDS);
        }
    }

    /** Starts a command on a thread of its own; its output can be read while it runs. */
    static Running start(Map<String, String> env, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        CompletableFuture<Integer> exit = new CompletableFuture<>();
        Thread thread = Thread.ofVirtual().name("cli-" + args[0]).start(() -> {
            try {
                exit.complete(Main.run(args, env, o, e));
            } catch (Throwable t) {
                exit.completeExceptionally(t);
            }
        });
        return new Running(out, err, thread, exit);
    }

    static Result run(Map<String, String> env, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        long started = System.nanoTime();
        int exit;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            exit = Main.run(args, env, o, e);
        }
        Result r = new Result(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8),
                Duration.ofNanos(System.nanoTime() - started));
        System.out.println("$ slipway " + String.join(" ", Arrays.asList(args)) + "\n" + r);
        return r;
    }
}
