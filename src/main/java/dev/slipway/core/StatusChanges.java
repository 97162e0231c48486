package dev.slipway.core;

import org.jdbi.v3.core.Handle;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Wakes the long-polls of this server as soon as a record's status changes, instead of at their next
 * read of the store: at the commit of a change made here, and at the store's notice of one made by
 * another server sharing PostgreSQL. Only records someone waits on are tracked. Waiters still read
 * the store now and then, in case a notice is lost.
 */
public final class StatusChanges {
    private static final class Watched {
        long generation;
        int waiters;
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Map<String, Watched> watched = new HashMap<>();

    /** Starts watching {@code id}; returns its generation, to pass to {@link #await}. Pair with {@link #unwatch}. */
    public long watch(String id) {
        lock.lock();
        try {
            Watched w = watched.computeIfAbsent(id, k -> new Watched());
            w.waiters++;
            return w.generation;
        } finally {
            lock.unlock();
        }
    }

    public void unwatch(String id) {
        lock.lock();
        try {
            Watched w = watched.get(id);
            if (w != null && --w.waiters == 0) watched.remove(id);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until {@code id} changes past {@code seen} or the time is up; returns the generation then.
     * The caller must be watching {@code id}.
     */
    public long await(String id, long seen, long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        lock.lock();
        try {
            Watched w = watched.get(id);
            if (w == null) throw new IllegalStateException("not watching " + id);
            while (w.generation == seen && nanos > 0) nanos = changed.awaitNanos(nanos);
            return w.generation;
        } finally {
            lock.unlock();
        }
    }

    public void changed(String id) {
        lock.lock();
        try {
            Watched w = watched.get(id);
            if (w == null) return;
            w.generation++;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** {@link #changed} once the handle's transaction commits (at once outside a transaction). */
    public void changedAfterCommit(Handle h, String id) {
        if (h.isInTransaction()) h.afterCommit(() -> changed(id));
        else changed(id);
    }
}
