package dev.slipway.projects;

import dev.slipway.store.ChangeFeed;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Projects as {@code GET /v1/projects/{id}} reads them, kept in memory while the store tells this server of
 * every change: on PostgreSQL a trigger notifies each server of the project a commit touched
 * ({@link ChangeFeed}), and this server's own writes say so after their commit; on the embedded store, whose only
 * writer is this server, every committed write to a table a read shows says so ({@link
 * dev.slipway.store.EmbeddedWrites}). While the feed's connection is lost nothing is kept and every read goes to the
 * store. Each project is kept with what its read shows beside it (its registry login and git settings), as
 * {@link ProjectStore.Shown}.
 *
 * <p>A read that raced a change must not be kept: every change moves {@link #generation}, and a value read
 * from the store is kept only if no change came in between. {@link #MAX_AGE} bounds how stale an entry can
 * be even if a notice were lost.
 */
public final class ProjectCache implements ProjectChanges, ChangeFeed.Listener {
    static final Duration MAX_AGE = Duration.ofSeconds(1);
    private static final int MAX_ENTRIES = 10_000;

    private record Entry(ProjectStore.Shown shown, Instant readAt) {}

    private final Clock clock;
    private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();
    private final AtomicLong generation = new AtomicLong();
    private volatile boolean informed;
    private final List<ProjectChanges> followers = new CopyOnWriteArrayList<>();

    public ProjectCache(Clock clock) {
        this.clock = clock;
    }

    /** The project, from memory when a fresh copy is there, else read with {@code load}. */
    public Optional<ProjectStore.Shown> get(String id, Function<String, Optional<ProjectStore.Shown>> load) {
        Instant now = clock.instant();
        Entry entry = entries.get(id);
        if (entry != null && informed && entry.readAt().plus(MAX_AGE).isAfter(now)) return Optional.of(entry.shown());
        long before = generation.get();
        Optional<ProjectStore.Shown> read = load.apply(id);
        if (read.isPresent() && informed) {
            if (entries.size() >= MAX_ENTRIES) entries.clear();
            entries.put(id, new Entry(read.get(), now));
            // a change since the read began may have been removed before this put: take the put back
            if (generation.get() != before) entries.remove(id);
        }
        return read;
    }

    @Override
    public void changed(String projectId) {
        generation.incrementAndGet();
        if (projectId == null || projectId.isEmpty()) entries.clear();
        else entries.remove(projectId);
    }

    /**
     * Also told of each change the feed brings (other servers' writes too), and of {@code null} (any project)
     * whenever the feed starts listening again, since changes may have gone untold meanwhile.
     */
    public void follow(ProjectChanges follower) {
        followers.add(follower);
    }

    /** A notice of the feed: a project id. */
    @Override
    public void accept(String projectId) {
        changed(projectId);
        for (ProjectChanges f : followers) f.changed(projectId == null || projectId.isEmpty() ? null : projectId);
    }

    /** The store now tells of every change (from this moment on): start keeping projects. */
    @Override
    public void listening() {
        changed(null);
        informed = true;
        for (ProjectChanges f : followers) f.changed(null);
    }

    /**
     * The embedded store's single server is told of every write by the store itself ({@link
     * dev.slipway.store.EmbeddedWrites}): keep projects from now on, with no feed and no follower to tell.
     */
    public void toldOfEveryWrite() {
        changed(null);
        informed = true;
    }

    /** Changes may go untold (the feed is down): keep nothing until {@link #listening()} again. */
    @Override
    public void deaf() {
        informed = false;
        changed(null);
    }

    /** True while projects are kept. */
    boolean informed() {
        return informed;
    }
}
