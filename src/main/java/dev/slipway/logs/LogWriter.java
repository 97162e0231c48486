package dev.slipway.logs;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes log entries to the store on its own thread, so a run does not wait for a transaction per line.
 * A batch is what was queued within {@link #LINGER} of its first entry, or until someone flushes: one
 * transaction per log per batch. Entries are written in the order they were added; {@link #flush()} waits
 * until those added before it are in the store, {@link #close()} writes what is left and stops the thread.
 */
final class LogWriter implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LogWriter.class);
    static final int MAX_BATCH = 500;
    /**
     * How long the first entry of a batch waits for more: a run logs its steps a few ms apart, and a
     * transaction each costs more store work than the wait costs anyone (readers here flush).
     */
    static final Duration LINGER = Duration.ofMillis(50);
    /** A flush waits at most this long: a writer stuck behind a lock must not hang a run for good. */
    private static final Duration FLUSH_LIMIT = Duration.ofSeconds(30);

    record Pending(long ticket, String ownerId, Instant at, Level level, String message) {}

    /** Writes one log's entries, oldest first, in one transaction. */
    @FunctionalInterface
    interface Batch {
        void write(String ownerId, List<Pending> entries);
    }

    private final Batch batch;
    private final Object lock = new Object();
    private final ArrayDeque<Pending> queue = new ArrayDeque<>();
    private long added;   // tickets handed out
    private long done;    // every ticket up to this one is written (or was given up on)
    private long wanted;  // a flush waits for every ticket up to this one: write now
    private boolean closed;
    private Thread thread;

    LogWriter(Batch batch) {
        this.batch = batch;
    }

    /** Queues an entry; false once closed (the caller writes it itself). */
    boolean add(String ownerId, Instant at, Level level, String message) {
        synchronized (lock) {
            if (closed) return false;
            queue.add(new Pending(++added, ownerId, at, level, message));
            if (thread == null) thread = Thread.ofPlatform().daemon().name("log-writer").start(this::loop);
            lock.notifyAll();
            return true;
        }
    }

    /** Returns once every entry added before this call is in the store. */
    void flush() {
        long deadline = System.nanoTime() + FLUSH_LIMIT.toNanos();
        synchronized (lock) {
            long target = added;
            if (done < target) {
                wanted = Math.max(wanted, target);
                lock.notifyAll();
            }
            while (done < target) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || thread == null || !thread.isAlive()) {
                    LOG.warn("log entries up to #{} were not written within {} s", target, FLUSH_LIMIT.toSeconds());
                    return;
                }
                try {
                    lock.wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private void loop() {
        while (true) {
            List<Pending> next = new ArrayList<>();
            synchronized (lock) {
                while (queue.isEmpty() && !closed) {
                    try {
                        lock.wait();
                    } catch (InterruptedException e) {
                        // only close() ends the writer, once the queue is empty
                    }
                }
                if (queue.isEmpty()) return;
                long until = System.nanoTime() + LINGER.toNanos();
                long left;
                while (!closed && wanted <= done && queue.size() < MAX_BATCH && (left = until - System.nanoTime()) > 0) {
                    try {
                        lock.wait(Math.max(1, left / 1_000_000));
                    } catch (InterruptedException e) {
                        // only close() ends the writer
                    }
                }
                while (!queue.isEmpty() && next.size() < MAX_BATCH) next.add(queue.poll());
            }
            write(next);
            synchronized (lock) {
                done = next.getLast().ticket();
                lock.notifyAll();
            }
        }
    }

    private void write(List<Pending> entries) {
        Map<String, List<Pending>> byOwner = new LinkedHashMap<>();
        for (Pending p : entries) byOwner.computeIfAbsent(p.ownerId(), k -> new ArrayList<>()).add(p);
        // one transaction per log: each locks its owner's row, and holding two at once could deadlock with a
        // state change that locks them in the other order
        byOwner.forEach((owner, list) -> {
            try {
                batch.write(owner, list);
            } catch (RuntimeException first) {
                try {
                    batch.write(owner, list); // a connection dropped by the pool, a lock timeout: once more
                } catch (RuntimeException e) {
                    LOG.warn("{} log entries of {} could not be stored: {}", list.size(), owner, e.toString());
                }
            }
        });
    }

    /** Writes what is queued, then stops the thread; later entries are the callers' to write. */
    @Override
    public void close() {
        Thread t;
        synchronized (lock) {
            closed = true;
            lock.notifyAll();
            t = thread;
        }
        if (t == null) return;
        try {
            t.join(FLUSH_LIMIT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
