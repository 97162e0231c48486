package dev.slipway.projects;

import dev.slipway.testing.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/** The cache's own rules; the store's notices driving it are in {@link ProjectChangeFeedTest}. */
class ProjectCacheTest {
    private final MutableClock clock = new MutableClock();
    private final ProjectCache cache = new ProjectCache(clock);
    private final AtomicInteger reads = new AtomicInteger();

    /** Reads "from the store": a project whose branch tells how many reads there were. */
    private final Function<String, Optional<ProjectStore.Shown>> store = id -> Optional.of(project(id, "read-" + reads.incrementAndGet()));

    private static ProjectStore.Shown project(String id, String branch) {
        return new ProjectStore.Shown(new Project(id, "acc_1", "p", "github", "acme/p", branch, "node-express", "local", null, null,
                Instant.EPOCH, List.of()), null, ProjectGit.NONE);
    }

    private String branch(String id) {
        return cache.get(id, store).orElseThrow().project().branch();
    }

    @Test
    void keepsNothingUntilTheStoreTellsOfChanges() {
        assertThat(branch("prj_a")).isEqualTo("read-1");
        assertThat(branch("prj_a")).isEqualTo("read-2");
        cache.listening();
        assertThat(branch("prj_a")).isEqualTo("read-3");
        assertThat(branch("prj_a")).isEqualTo("read-3");
    }

    @Test
    void aChangeDropsThatProjectAndAnUnnamedChangeDropsAll() {
        cache.listening();
        branch("prj_a");
        branch("prj_b");
        cache.accept("prj_a");
        assertThat(branch("prj_a")).isEqualTo("read-3");
        assertThat(branch("prj_b")).isEqualTo("read-2");
        cache.changed(null);
        assertThat(branch("prj_b")).isEqualTo("read-4");
    }

    @Test
    void aReadThatRacedAChangeIsNotKept() {
        cache.listening();
        // the notice of a change arrives while the read is under way: the read may have seen the old row
        Function<String, Optional<ProjectStore.Shown>> racing = id -> {
            Optional<ProjectStore.Shown> old = store.apply(id);
            cache.accept(id);
            return old;
        };
        assertThat(cache.get("prj_a", racing).orElseThrow().project().branch()).isEqualTo("read-1");
        assertThat(branch("prj_a")).isEqualTo("read-2");
        assertThat(branch("prj_a")).isEqualTo("read-2");
    }

    @Test
    void losingTheFeedDropsEverythingAndKeepsNothingUntilItIsBack() {
        cache.listening();
        branch("prj_a");
        cache.deaf();
        assertThat(branch("prj_a")).isEqualTo("read-2");
        assertThat(branch("prj_a")).isEqualTo("read-3");
        cache.listening();
        assertThat(branch("prj_a")).isEqualTo("read-4");
        assertThat(branch("prj_a")).isEqualTo("read-4");
    }

    @Test
    void anEntryIsReadAgainOnceItIsOlderThanTheMaximumAge() {
        cache.listening();
        branch("prj_a");
        clock.advance(ProjectCache.MAX_AGE.minusMillis(1));
        assertThat(branch("prj_a")).isEqualTo("read-1");
        clock.advance(Duration.ofMillis(2));
        assertThat(branch("prj_a")).isEqualTo("read-2");
    }

    @Test
    void aProjectThatDoesNotExistIsNotKept() {
        cache.listening();
        AtomicInteger misses = new AtomicInteger();
        Function<String, Optional<ProjectStore.Shown>> none = id -> {
            misses.incrementAndGet();
            return Optional.empty();
        };
        assertThat(cache.get("prj_x", none)).isEmpty();
        assertThat(cache.get("prj_x", none)).isEmpty();
        assertThat(misses).hasValue(2);
    }
}
