package dev.slipway.jobs;

import org.jdbi.v3.core.Handle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.slipway.core.Incident;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The job workers of one server: {@code slots} virtual threads claim jobs from the store, a
 * heartbeat extends the leases of the running ones. {@link #wake()} lets a new job start at once
 * instead of at the next poll: it wakes one idle worker per new job, not every one, because a woken
 * worker's claim runs on a carrier thread until it is done (an embedded H2 never blocks), and with two
 * slots on two cores waking both took every carrier from the request that created the job, so its
 * response waited for two claims (a warm rollback).
 */
public final class Workers implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Workers.class);
    static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration HEARTBEAT = Duration.ofSeconds(5);
    private static final Duration POLL = Duration.ofSeconds(1);

    private final JobStore jobs;
    private volatile Map<String, JobRunner> runners = Map.of();
    private final String node;
    private final String owner;
    private final Semaphore signal = new Semaphore(0);
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Map<String, AtomicBoolean> held = new ConcurrentHashMap<>();
    private final Thread[] threads;
    private final Set<Thread> direct = ConcurrentHashMap.newKeySet();
    private volatile Thread heartbeat;
    private final long pollMillis;
    /** Claims and heartbeats that fail while the store is away: one log line per incident, not one per poll. */
    private final Incident claims;
    private final Incident heartbeats;

    /**
     * Workers that take no job before {@link #start}; they exist before their runners, which need them to
     * be woken by a new job.
     *
     * @param nodeId this server's node id: its leases are named {@code <node id>/<random>}, so that after a
     *               restart the server can take back at once the jobs its previous run held
     */
    public Workers(JobStore jobs, int slots, String nodeId, Clock clock) {
        this(jobs, slots, nodeId, POLL, clock);
    }

    /** @param poll how long an idle worker waits for a wake before it looks for a job again */
    Workers(JobStore jobs, int slots, String nodeId, Duration poll, Clock clock) {
        this.pollMillis = poll.toMillis();
        this.claims = new Incident(LOG, "job claims", clock);
        this.heartbeats = new Incident(LOG, "job heartbeats", clock);
        this.jobs = jobs;
        this.threads = new Thread[slots];
        this.node = nodeId.length() > 60 ? nodeId.substring(0, 60) : nodeId;
        this.owner = node + "/" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    }

    /**
     * Releases the leases an earlier run of this node left (it was killed, or stopped during a job), so
     * those jobs resume now rather than when their leases expire, then starts claiming jobs of these kinds.
     */
    public synchronized void start(Map<String, JobRunner> runners) {
        if (!running.get() || heartbeat != null) return;
        this.runners = Map.copyOf(runners);
        try {
            int released = jobs.releaseLeasesOfNode(node, owner);
            if (released > 0) LOG.info("{} job(s) interrupted by the previous run of this server resume now", released);
        } catch (RuntimeException e) {
            LOG.warn("releasing the leases of the previous run failed (its jobs resume when they expire): {}", e.toString());
        }
        for (int i = 0; i < threads.length; i++) {
            threads[i] = Thread.ofVirtual().name("worker-" + i).start(this::loop);
        }
        heartbeat = Thread.ofVirtual().name("job-heartbeat").start(this::beat);
    }

    public String owner() { return owner; }

    public int slots() { return threads.length; }

    /** Workers waiting for a wake (or the poll) now. */
    int idle() {
        return signal.getQueueLength();
    }

    /**
     * One new job is claimable: one idle worker looks now. A worker busy with a job claims again when it is
     * done, so a permit nobody takes at once is at most one needless claim later.
     */
    public void wake() {
        if (signal.availablePermits() < threads.length) signal.release();
    }

    /**
     * Queues a job inside the caller's transaction already held by this server, when nothing of its project
     * is ahead of it; the caller hands it to {@link #runNow} after the commit. For jobs that build nothing and must
     * not wait for a free slot behind long builds (a rollback: a route switch, or the start of a build already made);
     * empty when the job was queued for the workers (they are woken after the commit by the caller) or this server
     * takes no jobs yet.
     */
    public Optional<Job> enqueueHeld(Handle h, String kind, String subjectId, String projectId) {
        if (heartbeat == null || !running.get()) {
            jobs.enqueue(h, kind, subjectId, projectId);
            return Optional.empty();
        }
        return jobs.enqueueHeld(h, kind, subjectId, projectId, owner, LEASE);
    }

    /** Runs a job {@link #enqueueHeld} gave, on a thread of its own, outside the slots; the heartbeat keeps its lease. */
    public void runNow(Job job) {
        if (!running.get()) return; // its lease expires and the next claim resumes it
        Thread t = Thread.ofVirtual().name("worker-now").unstarted(() -> {
            try {
                run(job);
            } finally {
                direct.remove(Thread.currentThread());
            }
        });
        direct.add(t);
        t.start();
    }

    private void loop() {
        while (running.get()) {
            Optional<Job> job = Optional.empty();
            try {
                job = jobs.claim(owner, LEASE);
                claims.ok();
            } catch (RuntimeException e) {
                claims.failed(e);
            }
            if (job.isEmpty()) {
                try {
                    signal.tryAcquire(pollMillis, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    return;
                }
                continue;
            }
            run(job.get());
        }
    }

    private void run(Job job) {
        AtomicBoolean hold = new AtomicBoolean(true);
        held.put(job.id(), hold);
        try {
            JobRunner runner = runners.get(job.kind());
            if (runner == null) throw new IllegalStateException("no runner for job kind " + job.kind());
            runner.run(job, hold::get);
            // a runner interrupted because the server stops returns early: its job stays to be resumed
            if (hold.get() && running.get() && !Thread.currentThread().isInterrupted()) jobs.finish(job.id(), owner);
        } catch (Throwable e) {
            LOG.error("job {} ({} {}) failed unexpectedly", job.id(), job.kind(), job.subjectId(), e);
            // the runner failed its subject where it could; the lease expiry retries otherwise
        } finally {
            held.remove(job.id());
        }
    }

    private void beat() {
        while (running.get()) {
            try {
                Thread.sleep(HEARTBEAT); // the heartbeat period itself, not a wait for work
            } catch (InterruptedException e) {
                return;
            }
            held.forEach((id, hold) -> {
                try {
                    if (!jobs.heartbeat(id, owner, LEASE)) hold.set(false);
                    heartbeats.ok();
                } catch (RuntimeException e) {
                    heartbeats.failed(e);
                }
            });
        }
    }

    /** Stops claiming; running jobs are left to their lease (another server or the next start resumes them). */
    @Override
    public synchronized void close() {
        running.set(false);
        if (heartbeat != null) heartbeat.interrupt();
        for (Thread t : threads) if (t != null) t.interrupt();
        direct.forEach(Thread::interrupt);
    }
}
