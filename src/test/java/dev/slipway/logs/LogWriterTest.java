package dev.slipway.logs;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/** The writer batches what queues up while it writes, keeps the order, and flush and close wait for it. */
class LogWriterTest {
    private final List<List<String>> batches = Collections.synchronizedList(new ArrayList<>());

    @Test
    void linesQueuedDuringAWriteGoTogetherInTheNextAndFlushWaitsForThem() throws Exception {
        CountDownLatch firstStarted = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        LogWriter writer = new LogWriter((owner, entries) -> {
            if (batches.isEmpty()) {
                firstStarted.countDown();
                await(release);
            }
            batches.add(entries.stream().map(e -> owner + ":" + e.message()).toList());
        });
        writer.add("dep_a", Instant.now(), Level.INFO, "first");
        assertThat(firstStarted.await(5, TimeUnit.SECONDS)).isTrue();
        for (int i = 0; i < 100; i++) writer.add(i % 2 == 0 ? "dep_a" : "mig_a", Instant.now(), Level.INFO, "line " + i);

        AtomicBoolean flushed = new AtomicBoolean();
        Thread flusher = Thread.ofPlatform().start(() -> {
            writer.flush();
            flushed.set(true);
        });
        flusher.join(Duration.ofMillis(200));
        assertThat(flushed).as("flush returned while entries were still queued").isFalse();

        release.countDown();
        flusher.join(Duration.ofSeconds(5));
        assertThat(flushed).isTrue();
        // the hundred lines queued during the first write: one batch per log, each in the order added
        assertThat(batches).hasSize(3);
        assertThat(batches.get(0)).containsExactly("dep_a:first");
        assertThat(batches.get(1)).hasSize(50).first().isEqualTo("dep_a:line 0");
        assertThat(batches.get(1)).last().isEqualTo("dep_a:line 98");
        assertThat(batches.get(2)).hasSize(50).first().isEqualTo("mig_a:line 1");
        for (List<String> b : batches.subList(1, 3)) {
            List<Integer> numbers = b.stream().map(s -> Integer.parseInt(s.substring(s.lastIndexOf(' ') + 1))).toList();
            assertThat(numbers).isSorted();
        }
        writer.close();
    }

    @Test
    void closeWritesWhatIsQueuedThenRefusesMore() {
        CountDownLatch release = new CountDownLatch(1);
        LogWriter writer = new LogWriter((owner, entries) -> {
            await(release);
            batches.add(entries.stream().map(LogWriter.Pending::message).toList());
        });
        for (int i = 0; i < 10; i++) writer.add("dep_b", Instant.now(), Level.INFO, "line " + i);
        Thread.ofPlatform().start(release::countDown);
        writer.close();
        assertThat(batches.stream().flatMap(List::stream).toList())
                .containsExactly("line 0", "line 1", "line 2", "line 3", "line 4", "line 5", "line 6", "line 7", "line 8", "line 9");
        assertThat(writer.add("dep_b", Instant.now(), Level.INFO, "late")).isFalse();
    }

    @Test
    void aFailedWriteIsTriedOnceMoreAndDoesNotStopTheWriter() {
        List<String> written = Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean failedOnce = new AtomicBoolean();
        LogWriter writer = new LogWriter((owner, entries) -> {
            if (failedOnce.compareAndSet(false, true)) throw new IllegalStateException("connection reset");
            entries.forEach(e -> written.add(e.message()));
        });
        writer.add("dep_c", Instant.now(), Level.INFO, "one");
        writer.flush();
        writer.add("dep_c", Instant.now(), Level.INFO, "two");
        writer.flush();
        assertThat(written).containsExactly("one", "two");
        writer.close();
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(10, TimeUnit.SECONDS)) throw new IllegalStateException("not released");
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
