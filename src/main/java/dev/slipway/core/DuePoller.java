package dev.slipway.core;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The sending side of an outbox: a poller finds due items, takes each one's lease ({@link Work#claim}, so one
 * item is sent by one server at a time) and runs it on a virtual thread of its own, at most {@code slots} at once.
 * It looks again when woken ({@link #wake}: something was queued here), when a run ends, and otherwise when the
 * next item is due, within [{@code pollMillis}, {@code idleMillis}]: the longest pause bounds how late an item left
 * by a server that died (or queued by another one) is picked up.
 */
public final class DuePoller<T> implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DuePoller.class);

    /** What is polled. */
    public interface Work<T> {
        /** Items due now, oldest first. */
        List<T> due(int limit);

        /** The item's identity: one run at a time per key on this server. */
        String key(T item);

        /** Takes the item's lease; false when another server holds it, or it is no longer due. */
        boolean claim(T item);

        /** When the next item is due, if any waits. */
        Optional<Instant> nextDue();

        /** Sends it (on its own virtual thread); what it does not record is found due again. */
        void run(T item);
    }

    private final String name;
    private final Work<T> work;
    private final int slotCount;
    private final long pollMillis;
    private final long idleMillis;
    private final Clock clock;
    private final ExecutorService runners = Executors.newVirtualThreadPerTaskExecutor();
    private final Semaphore slots;
    private final Semaphore signal = new Semaphore(0);
    private final Set<String> active = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private Thread poller;
    /** The polls, and the sends, that fail while the store is away: one log line per incident, not one per poll. */
    private final Incident polls;
    private final Incident sends;

    /** @param name for the poller thread and the log ("webhook", "commit-status") */
    public DuePoller(String name, Work<T> work, int slots, long pollMillis, long idleMillis, Clock clock) {
        this.name = name;
        this.work = work;
        this.slotCount = slots;
        this.slots = new Semaphore(slots);
        this.pollMillis = pollMillis;
        this.idleMillis = idleMillis;
        this.clock = clock;
        this.polls = new Incident(LOG, "looking for due " + name + " items", clock);
        this.sends = new Incident(LOG, "sending " + name + " items", clock);
    }

    public synchronized void start() {
        if (poller != null || !running.get()) return;
        poller = Thread.ofVirtual().name(name + "-poller").start(this::poll);
    }

    /** Something was queued: look now rather than at the next poll. */
    public void wake() {
        signal.release();
    }

    /** False once closing: a run in progress should stop at its next step. */
    public boolean running() {
        return running.get();
    }

    private void poll() {
        while (running.get()) {
            try {
                for (T item : work.due(slotCount * 2)) {
                    String key = work.key(item);
                    if (active.contains(key)) continue;
                    if (!slots.tryAcquire()) break;
                    if (!work.claim(item)) {
                        slots.release();
                        continue;
                    }
                    active.add(key);
                    runners.submit(() -> runOne(key, item));
                }
                polls.ok();
            } catch (RuntimeException e) {
                if (running.get()) polls.failed(e);
            }
            try {
                signal.tryAcquire(pause(), TimeUnit.MILLISECONDS);
                signal.drainPermits();
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void runOne(String key, T item) {
        try {
            work.run(item);
            sends.ok();
        } catch (RuntimeException e) {
            if (running.get()) sends.failed(e);
        } finally {
            active.remove(key);
            slots.release();
            signal.release();
        }
    }

    /** Until the next item is due (a retry, typically), within [pollMillis, idleMillis]. */
    private long pause() {
        try {
            return work.nextDue()
                    .map(at -> Math.clamp(Duration.between(clock.instant(), at).toMillis(), pollMillis, idleMillis))
                    .orElse(idleMillis);
        } catch (RuntimeException e) {
            if (running.get()) polls.failed(e);
            return pollMillis;
        }
    }

    /** Stops polling; a run in progress is interrupted and waited for up to 5 s. */
    @Override
    public synchronized void close() {
        running.set(false);
        if (poller != null) poller.interrupt();
        runners.shutdownNow();
        try {
            runners.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
