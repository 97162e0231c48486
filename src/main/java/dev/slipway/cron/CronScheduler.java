package dev.slipway.cron;

import dev.slipway.core.Incident;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Starts the runs of every production deployment's cron jobs when their time comes. Each server ticks; the store
 * gives each time to one of them ({@link CronRunStore#claim}). A time that comes while the job's last run still runs
 * is recorded skipped; times that passed while no server ticked (downtime) are recorded missed and not run late;
 * only the newest time is run, once.
 */
public final class CronScheduler {
    private static final Logger LOG = LoggerFactory.getLogger(CronScheduler.class);
    /** A running run whose server has not beaten for this long is taken for stopped (its server died). */
    static final Duration STALE = Duration.ofMinutes(2);
    /** At most this many missed times are recorded per job and tick; older ones are counted in the reason. */
    private static final int MISSED_SHOWN = 20;

    private final CronTable table;
    private final CronRunStore runs;
    private final Start runner;
    private final String node;
    private final Clock clock;
    /** Runs this server started and has not seen end, by run id. */
    private final Map<String, Going> mine = new ConcurrentHashMap<>();
    /** Ticks that fail while the store is away: one log line per incident, not one a second. */
    private final Incident ticks;

    private record Going(String projectId, Thread thread) {}

    /** Runs one claimed run to its end on the calling thread ({@link CronRunner#run}). */
    @FunctionalInterface
    public interface Start {
        void run(CronJob job, CronRun run);
    }

    public CronScheduler(CronTable table, CronRunStore runs, Start runner, String node, Clock clock) {
        this.table = table;
        this.runs = runs;
        this.runner = runner;
        this.node = node;
        this.clock = clock;
        this.ticks = new Incident(LOG, "cron ticks", clock);
    }

    /** How often a server looks for due jobs: a run starts at most this long after its time. */
    static final Duration TICK = Duration.ofSeconds(1);

    private volatile Thread ticker;
    /** When this server last beat for its runs and looked for dead servers' (only the ticker writes it). */
    private volatile Instant lastBeat;

    /**
     * After the server's recovery (which sweeps every cell it did not adopt): records what this server's previous
     * run left running as failed, then ticks until {@link #close}.
     */
    public synchronized void start() {
        if (ticker != null) return;
        ticker = Thread.ofVirtual().name("cron").start(() -> {
            try {
                int n = runs.abandonedBy(node);
                if (n > 0) LOG.info("{} cron run(s) were running when this server last stopped: recorded as failed", n);
            } catch (RuntimeException e) {
                LOG.warn("could not record the cron runs of this server's previous run: {}", e.toString());
            }
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    tick();
                    ticks.ok();
                } catch (RuntimeException e) {
                    ticks.failed(e);
                }
                try {
                    Thread.sleep(TICK); // the tick period, not a wait for work
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
    }

    /** Starts what is due now; beats for what runs here; ends what a dead server left running. */
    public void tick() {
        Instant now = clock.instant();
        // the store's writes a quarter of the stale time apart, not each tick: an idle server writes nothing
        if (lastBeat == null || !now.isBefore(lastBeat.plus(STALE.dividedBy(4)))) {
            lastBeat = now;
            if (!mine.isEmpty()) runs.heartbeat(node);
            int abandoned = runs.abandoned(now.minus(STALE));
            if (abandoned > 0) LOG.warn("{} cron run(s) of a server that stopped beating recorded as failed", abandoned);
        }
        for (CronJob job : table.jobs()) {
            try {
                due(job, now);
            } catch (RuntimeException e) {
                LOG.warn("cron job {} of {}: {}", job.name(), job.projectId(), e.toString());
            }
        }
    }

    private void due(CronJob job, Instant now) {
        if (job.node() != null && !job.node().equals(node)) return;
        Optional<Instant> at = job.schedule().lastAt(now).filter(t -> !t.isBefore(job.since()));
        if (at.isEmpty()) return;
        Optional<Instant> latest = runs.latest(job.projectId(), job.name());
        if (latest.isPresent() && !at.get().isAfter(latest.get())) return;
        String skipped = runs.running(job.projectId(), job.name(), now.minus(STALE))
                ? "its previous run was still running" : null;
        Optional<CronRun> claimed = runs.claim(job, at.get(), node, skipped);
        if (claimed.isEmpty()) return; // another server has it
        Instant from = latest.filter(l -> l.isAfter(job.since())).orElse(job.since().minusNanos(1));
        List<Instant> missed = job.schedule().between(from, at.get(), MISSED_SHOWN + 1);
        if (!missed.isEmpty()) {
            runs.missed(job, missed.subList(Math.max(0, missed.size() - MISSED_SHOWN), missed.size()),
                    "no server ran Slipway at that time" + (missed.size() > MISSED_SHOWN ? " (and earlier times too)" : ""));
        }
        if (skipped != null) return;
        CronRun run = claimed.get();
        Thread t = Thread.ofVirtual().name("cron-" + run.id()).unstarted(() -> {
            try {
                runner.run(job, run);
            } finally {
                mine.remove(run.id());
            }
        });
        mine.put(run.id(), new Going(job.projectId(), t));
        t.start();
    }

    /** The runs this server has going now. */
    public Set<String> running() {
        return Set.copyOf(mine.keySet());
    }

    /** Stops the project's runs under way here (it is being deleted): each is recorded as failed. */
    public void stop(String projectId) {
        mine.values().stream().filter(g -> g.projectId().equals(projectId)).forEach(g -> g.thread().interrupt());
    }

    /** Stops ticking and the runs under way (the server stops): each is recorded as failed. */
    public synchronized void close() {
        if (ticker != null) ticker.interrupt();
        mine.values().forEach(g -> g.thread().interrupt());
    }
}
