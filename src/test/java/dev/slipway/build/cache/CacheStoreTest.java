package dev.slipway.build.cache;

import dev.slipway.testing.Await;
import dev.slipway.testing.MutableClock;
import java.io.UncheckedIOException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The build cache's entries on a real directory: the per-account bound, LRU eviction, atomic commits. */
class CacheStoreTest {
    private static final long KB = 1000;

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock();

    private void put(CacheStore store, String account, String name, int kb) throws IOException {
        Path temp = store.temp(account);
        Files.writeString(CacheStore.tree(temp).resolve("data"), "x".repeat(kb * 1000));
        store.commit(account, BuildCache.DEPENDENCIES, name, temp, kb * KB, false);
        clock.advance(Duration.ofSeconds(1));
    }

    private Optional<String> get(CacheStore store, String account, String name) {
        Optional<String> read = store.read(account, BuildCache.DEPENDENCIES, name, tree -> {
            try {
                return Files.readString(tree.resolve("data"));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        clock.advance(Duration.ofSeconds(1));
        return read;
    }

    private List<String> names(CacheStore store, String account) throws IOException {
        List<String> out = new ArrayList<>();
        for (var e : store.entries(account)) out.add(e.dir().getFileName().toString());
        out.sort(null);
        return out;
    }

    @Test
    void theLeastRecentlyUsedEntriesGoWhenAnAccountIsOverItsBound() throws IOException {
        CacheStore store = new CacheStore(dir, 300 * KB, clock);
        put(store, "acct_a", "one", 100);
        put(store, "acct_a", "two", 100);
        put(store, "acct_a", "three", 100);
        assertThat(get(store, "acct_a", "one")).isPresent(); // "two" is now the least recently used

        put(store, "acct_a", "four", 100);

        assertThat(names(store, "acct_a")).containsExactly("four", "one", "three");
        assertThat(get(store, "acct_a", "two")).isEmpty();
        assertThat(store.entries("acct_a").stream().mapToLong(CacheStore.Entry::bytes).sum()).isLessThanOrEqualTo(300 * KB);
        assertThat(Files.exists(dir.resolve("acct_a/deps/two"))).isFalse();
    }

    @Test
    void eachAccountHasItsOwnBoundAndItsOwnEntries() throws IOException {
        CacheStore store = new CacheStore(dir, 250 * KB, clock);
        put(store, "acct_a", "same-key", 200);
        put(store, "acct_b", "other", 200);
        put(store, "acct_b", "more", 200); // evicts only b's own older entry

        assertThat(names(store, "acct_a")).containsExactly("same-key");
        assertThat(names(store, "acct_b")).containsExactly("more");
        assertThat(get(store, "acct_b", "same-key")).isEmpty();
        assertThat(get(store, "acct_a", "same-key")).isPresent();
    }

    @Test
    void anEntryLargerThanTheBoundIsNotKept() throws IOException {
        CacheStore store = new CacheStore(dir, 100 * KB, clock);
        put(store, "acct_a", "small", 50);
        Path temp = store.temp("acct_a");
        Files.writeString(CacheStore.tree(temp).resolve("data"), "x");
        var done = store.commit("acct_a", BuildCache.DEPENDENCIES, "huge", temp, 500 * KB, false);

        assertThat(done.kept()).isFalse();
        assertThat(names(store, "acct_a")).isEmpty(); // the oldest went first, then the huge one itself
        assertThat(get(store, "acct_a", "huge")).isEmpty();
    }

    @Test
    void theFirstEntryOfAKeyStaysUnlessReplacedAndNoTemporaryDirectoryIsLeft() throws IOException {
        CacheStore store = new CacheStore(dir, 1000 * KB, clock);
        Path first = store.temp("acct_a");
        Files.writeString(CacheStore.tree(first).resolve("data"), "first");
        Path second = store.temp("acct_a");
        Files.writeString(CacheStore.tree(second).resolve("data"), "second");

        assertThat(store.commit("acct_a", BuildCache.DEPENDENCIES, "k", first, 5, false).kept()).isTrue();
        assertThat(store.commit("acct_a", BuildCache.DEPENDENCIES, "k", second, 6, false).kept()).isFalse();
        assertThat(get(store, "acct_a", "k")).contains("first");

        Path third = store.temp("acct_a");
        Files.writeString(CacheStore.tree(third).resolve("data"), "third");
        assertThat(store.commit("acct_a", BuildCache.DEPENDENCIES, "k", third, 5, true).kept()).isTrue();
        assertThat(get(store, "acct_a", "k")).contains("third");
        try (var children = Files.list(dir.resolve("acct_a"))) {
            assertThat(children.map(p -> p.getFileName().toString())).containsExactly("deps");
        }
    }

    @Test
    void aHalfMadeEntryIsNeverReadAndTheSweepDeletesIt() throws IOException {
        CacheStore store = new CacheStore(dir, 1000 * KB, clock);
        Path crashed = store.temp("acct_a"); // a build killed before its commit
        Files.writeString(CacheStore.tree(crashed).resolve("data"), "half", StandardCharsets.UTF_8);

        assertThat(store.entries("acct_a")).isEmpty();
        assertThat(store.sweep()).isEqualTo(1);
        assertThat(Files.exists(crashed)).isFalse();
    }

    @Test
    void namesThatCouldLeaveTheAccountsFolderAreRefused() {
        CacheStore store = new CacheStore(dir, 1000 * KB, clock);
        for (String bad : new String[] {"..", "../acct_b", "a/b", "", "acct a"}) {
            assertThatThrownBy(() -> store.temp(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> store.read("acct_a", BuildCache.DEPENDENCIES, bad, t -> t)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void anEntryBeingReadIsNotEvictedUnderIt() throws Exception {
        CacheStore store = new CacheStore(dir, 150 * KB, clock);
        put(store, "acct_a", "old", 100);
        CountDownLatch reading = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<String> reader = pool.submit(() -> store.read("acct_a", BuildCache.DEPENDENCIES, "old", tree -> {
                reading.countDown();
                try {
                    assertThat(release.await(10, TimeUnit.SECONDS)).isTrue();
                    return Files.readString(tree.resolve("data"));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }).orElseThrow());
            assertThat(reading.await(10, TimeUnit.SECONDS)).isTrue();
            clock.advance(Duration.ofSeconds(1));
            Future<?> writer = pool.submit(() -> {
                put(store, "acct_a", "new", 100); // must evict "old", but only after the read
                return null;
            });
            Await.until(Duration.ofSeconds(10), "the commit waits for the reader", () -> store.waiting("acct_a"));
            assertThat(Files.readString(dir.resolve("acct_a/deps/old/tree/data"))).hasSize(100_000);
            release.countDown();
            assertThat(reader.get(10, TimeUnit.SECONDS)).hasSize(100_000);
            writer.get(10, TimeUnit.SECONDS);
            assertThat(names(store, "acct_a")).containsExactly("new");
        } finally {
            pool.shutdownNow();
        }
    }
}
