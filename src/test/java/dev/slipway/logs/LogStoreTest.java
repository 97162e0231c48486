package dev.slipway.logs;

import dev.slipway.store.Dialect;
import dev.slipway.testing.DatabasePerStore;
import dev.slipway.testing.EachStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Lines written through the batching writer read back complete and in order, on H2 and PostgreSQL. */
@EachStore
class LogStoreTest {
    final Dialect kind = database.kind();

    @RegisterExtension
    static final DatabasePerStore database = DatabasePerStore.open(4);

    @Test
    void aReaderSeesEveryLineLoggedBeforeItAsksAndAStateEntryAfterAFlushComesLast() {
        LogStore logs = new LogStore(database.jdbi(), Clock.systemUTC());
        String owner = "dep_" + System.nanoTime();
        LogSink sink = logs.sink(owner, Set.of("s3cret-value"));
        for (int i = 0; i < 300; i++) sink.log(Level.INFO, "line " + i + " s3cret-value");
        assertThat(logs.after(owner, 0, 1000)).hasSize(300);

        sink.log(Level.INFO, "last line");
        logs.flush();
        database.jdbi().useTransaction(h -> logs.append(h, owner, Level.SUCCESS, "Deployment is live"));
        List<LogEntry> all = logs.after(owner, 0, 1000);
        assertThat(all).hasSize(302);
        assertThat(all.get(0).message()).isEqualTo("line 0 ****");
        assertThat(all.get(299).message()).isEqualTo("line 299 ****");
        assertThat(all.get(300).message()).isEqualTo("last line");
        assertThat(all.get(301).message()).isEqualTo("Deployment is live");
        assertThat(all.stream().map(LogEntry::seq).toList()).isSorted();
        assertThat(all.stream().map(LogEntry::timestamp).toList()).isSorted();
        logs.close();
    }

    @Test
    void severalLinesAppendedInOneTransactionLandInTheirOrderWithTheirLevels() {
        LogStore logs = new LogStore(database.jdbi(), Clock.systemUTC());
        String owner = "dep_" + System.nanoTime();
        database.jdbi().useTransaction(h -> logs.append(h, owner, List.of(
                new LogStore.Line(Level.WARNING, "first"), new LogStore.Line(Level.INFO, "second s3cret"))));
        database.jdbi().useTransaction(h -> logs.append(h, owner, Level.INFO, "third"));
        List<LogEntry> all = logs.after(owner, 0, 10);
        assertThat(all.stream().map(LogEntry::message).toList()).containsExactly("first", "second s3cret", "third");
        assertThat(all.stream().map(LogEntry::level).toList()).containsExactly("warning", "info", "info");
        assertThat(all.stream().map(LogEntry::seq).toList()).isSorted().doesNotHaveDuplicates();
        logs.close();
    }

    @Test
    void linesOfConcurrentWritersAllLandEachInItsOrder() throws Exception {
        LogStore logs = new LogStore(database.jdbi(), Clock.systemUTC());
        String owner = "mig_" + System.nanoTime();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int id = t;
            LogSink sink = logs.sink(owner, Set.of());
            threads.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 200; i++) sink.log(Level.INFO, id + "/" + i);
            }));
        }
        for (Thread t : threads) t.join();
        List<LogEntry> all = logs.after(owner, 0, 5000);
        assertThat(all).hasSize(800);
        for (int t = 0; t < 4; t++) {
            String prefix = t + "/";
            List<Integer> mine = all.stream().map(LogEntry::message).filter(m -> m.startsWith(prefix))
                    .map(m -> Integer.parseInt(m.substring(prefix.length()))).toList();
            assertThat(mine).hasSize(200).isSorted();
        }
        logs.close();
    }

    /** An app that prints without end: its log keeps its newest lines, the store does not grow with it. */
    @Test
    void aLogKeepsItsNewestLinesAndTheOldestGo() {
        LogStore logs = new LogStore(database.jdbi(), Clock.systemUTC(), 100);
        String chatty = "dep_" + System.nanoTime();
        String quiet = "dep_q" + System.nanoTime();
        logs.append(quiet, Level.INFO, "the only line");
        for (int i = 0; i < 1000; i++) {
            logs.append(chatty, Level.INFO, "line " + i);
            if (i % 50 == 49) logs.flush(); // as an app prints: in many batches
        }
        logs.flush();
        List<LogEntry> kept = logs.last(chatty, 1000);
        assertThat(kept.size()).isBetween(100, 110);
        assertThat(kept.getLast().message()).isEqualTo("line 999");
        assertThat(kept.getFirst().message()).isEqualTo("line " + (1000 - kept.size()));
        assertThat(logs.last(quiet, 10)).extracting(LogEntry::message).containsExactly("the only line");
        logs.close();
    }

    @Test
    void closeWritesTheQueuedLinesAndLaterOnesAreWrittenAtOnce() {
        LogStore logs = new LogStore(database.jdbi(), Clock.systemUTC());
        String owner = "dep_" + System.nanoTime();
        for (int i = 0; i < 1000; i++) logs.append(owner, Level.INFO, "line " + i);
        logs.close();
        logs.append(owner, Level.WARNING, "after close");

        LogStore reader = new LogStore(database.jdbi(), Clock.systemUTC());
        List<LogEntry> all = database.jdbi().withHandle(h -> reader.last(h, owner, 2000));
        assertThat(all).hasSize(1001);
        assertThat(all.get(999).message()).isEqualTo("line 999");
        assertThat(all.get(1000).message()).isEqualTo("after close");
    }
}
