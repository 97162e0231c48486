package dev.slipway.api;

import dev.slipway.core.StatusChanges;
import dev.slipway.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A long-poll ends as soon as this server signals a change, not at its next read of the store: the
 * store is read only once a minute here, so only the signal can end these waits within the test.
 */
class LongPollTest {
    private static final Duration MINUTE = Duration.ofMinutes(1);
    private final StatusChanges changes = new StatusChanges();
    private final AtomicReference<String> status = new AtomicReference<>("building");
    private final AtomicInteger reads = new AtomicInteger();
    private final ExecutorService pollers = Executors.newCachedThreadPool();

    @AfterEach
    void stopPollers() {
        pollers.shutdownNow();
    }

    private CompletableFuture<String> poll(Duration wait, Duration storePoll) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return LongPoll.await(wait, storePoll, changes, "dep_1", () -> {
                    reads.incrementAndGet();
                    return status.get();
                }, s -> s, s -> s.equals("live") || s.equals("failed"));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, pollers);
    }

    private void awaitReads(int n) {
        Await.until(Duration.ofSeconds(10), n + " reads of the store", () -> reads.get() >= n);
    }

    @Test
    void aSignalledChangeEndsTheWaitAtOnce() throws Exception {
        var waiting = poll(MINUTE, MINUTE);
        awaitReads(1);
        status.set("deploying");
        changes.changed("dep_1");
        assertThat(waiting.get(10, TimeUnit.SECONDS)).isEqualTo("deploying");
        assertThat(reads.get()).isEqualTo(2);
    }

    @Test
    void aSignalWithoutAChangeOfStatusKeepsTheWaitGoing() throws Exception {
        var waiting = poll(MINUTE, MINUTE);
        awaitReads(1);
        changes.changed("dep_1"); // e.g. a build recorded: same status
        awaitReads(2);
        assertThat(waiting).isNotDone();
        changes.changed("dep_other");
        status.set("live");
        changes.changed("dep_1");
        assertThat(waiting.get(10, TimeUnit.SECONDS)).isEqualTo("live");
    }

    @Test
    void aChangeNotSignalledHereIsSeenAtTheNextReadOfTheStore() throws Exception {
        var waiting = poll(MINUTE, Duration.ofMillis(20));
        awaitReads(1);
        status.set("failed"); // written by another server: no signal
        assertThat(waiting.get(10, TimeUnit.SECONDS)).isEqualTo("failed");
    }

    @Test
    void theWaitEndsAtItsDeadlineWithTheStatusUnchanged() throws Exception {
        assertThat(poll(Duration.ofMillis(300), MINUTE).get(10, TimeUnit.SECONDS)).isEqualTo("building");
        assertThat(reads.get()).isEqualTo(2);
    }

    @Test
    void watchersAreForgottenWhenTheirWaitEnds() throws Exception {
        var first = poll(MINUTE, MINUTE);
        var second = poll(MINUTE, MINUTE);
        awaitReads(2);
        status.set("live");
        changes.changed("dep_1");
        first.get(10, TimeUnit.SECONDS);
        second.get(10, TimeUnit.SECONDS);
        long seen = changes.watch("dep_1");
        assertThat(seen).as("a new watch starts afresh").isZero();
        changes.unwatch("dep_1");
    }
}
