package dev.slipway.client.logs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.client.api.Api;
import dev.slipway.client.api.ApiError;
import dev.slipway.client.api.JsonTrees;
import dev.slipway.client.api.Retry;
import dev.slipway.client.context.Context;
import dev.slipway.client.context.TimedOut;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * Follows a run's log as it is written: {@code Accept: text/event-stream} until {@code event: end}.
 * A dropped stream is resumed where it stopped ({@code Last-Event-ID}); the command's deadline ends it.
 */
public final class LogFollower {
    private enum Outcome { ENDED, CLOSED, BROKEN }

    private final Api api;
    private final Context ctx;

    public LogFollower(Api api, Context ctx) {
        this.api = api;
        this.ctx = ctx;
    }

    /** Streams {@code logsPath} (e.g. {@code /deployments/dep_…/logs}) into {@code sink} until the run ends. */
    public void follow(String logsPath, Consumer<JsonNode> sink, String what) {
        AtomicReference<String> lastId = new AtomicReference<>();
        int failures = 0;
        while (true) {
            api.deadline().check(what);
            long started = System.nanoTime();
            String before = lastId.get();
            AtomicReference<IOException> broken = new AtomicReference<>();
            Outcome outcome = read(api.stream(logsPath, before), sink, lastId, broken, what);
            if (outcome == Outcome.ENDED) return;
            boolean progressed = !Objects.equals(before, lastId.get())
                    || System.nanoTime() - started > Duration.ofSeconds(5).toNanos();
            failures = progressed && outcome == Outcome.CLOSED ? 0 : failures + 1;
            if (failures >= Retry.ATTEMPTS) {
                throw ApiError.unreachable("the log stream of " + logsPath + " kept breaking"
                        + (broken.get() == null ? "" : " (" + broken.get() + ")") + "; gave up after " + failures + " tries");
            }
            if (failures > 0) {
                Duration pause = Retry.backoff(failures);
                ctx.err().println("slipway: log stream interrupted; resuming in " + pause.toMillis() / 1000.0 + " s");
                api.deadline().sleep(pause, what);
            }
        }
    }

    private Outcome read(InputStream in, Consumer<JsonNode> sink, AtomicReference<String> lastId,
                         AtomicReference<IOException> broken, String what) {
        AtomicReference<Outcome> outcome = new AtomicReference<>();
        AtomicReference<RuntimeException> failure = new AtomicReference<>();
        Thread reader = Thread.ofVirtual().name("slipway-log-stream").start(() -> {
            try (in) {
                boolean ended = EventStream.read(in, e -> {
                    if ("end".equals(e.type())) return false;
                    if ("log".equals(e.type())) {
                        sink.accept(JsonTrees.parse(e.data()));
                        if (e.id() != null && !e.id().isEmpty()) lastId.set(e.id());
                    }
                    return true;
                });
                outcome.set(ended ? Outcome.ENDED : Outcome.CLOSED);
            } catch (IOException e) {
                broken.set(e);
                outcome.set(Outcome.BROKEN);
            } catch (RuntimeException e) {
                failure.set(e);
            }
        });
        boolean finished;
        try {
            finished = reader.join(api.deadline().remaining());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            finished = false;
        }
        if (!finished) {
            reader.interrupt(); // wakes a read blocked on the stream
            try {
                in.close();
            } catch (IOException ignored) {
                // closing is all that is left to do
            }
            api.deadline().check(what);
            throw new TimedOut("interrupted " + what);
        }
        if (failure.get() != null) throw failure.get();
        return outcome.get();
    }
}
