package dev.slipway.runtime;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import java.util.function.IntToLongFunction;
import java.util.function.Predicate;

/**
 * Keeps a replaced production instance running for a window (default 10 min) so that a rollback to
 * it is only a route switch, then stops it once it has had no request for the window — unless it
 * became production again first. One per project: the next replacement stops the older one at once.
 * The stop time is stored, so a restarted server keeps the schedule. A stop that fails (the store or the
 * runtime failing for a moment) is tried again, 1 s later, doubling up to a minute, until it succeeds.
 */
public final class RetiringPool implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RetiringPool.class);
    static final Duration FIRST_RETRY = Duration.ofSeconds(1);
    static final Duration MAX_RETRY = Duration.ofMinutes(1);

    private final AppRuntime runtime;
    private final InstanceStore store;
    private final Clock clock;
    private final Duration window;
    private final ScheduledExecutorService timer =
            Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("retiring-pool").factory());
    private final Map<String, Retirement> retiring = new ConcurrentHashMap<>();

    private final Predicate<String> stillServing;
    private final IntConsumer stoppedPort;
    private final IntToLongFunction lastRequestMillis;

    /** @param failures failed tries to stop it so far */
    private record Retirement(Instant stopAt, ScheduledFuture<?> task, int failures) {}

    public RetiringPool(AppRuntime runtime, InstanceStore store, Clock clock, Duration window) {
        this(runtime, store, clock, window, id -> false, port -> { }, port -> 0);
    }

    /**
     * @param stillServing      asked again when the window has passed: true keeps the instance (it serves
     *                          production again, e.g. a rollback switched to it while a wake-up retired it)
     * @param stoppedPort       told the port of each instance it stopped, so routes to it are forgotten
     * @param lastRequestMillis epoch millis of the last request the router sent to a port (0: none); an
     *                          instance is stopped only once it has been idle for the window
     */
    public RetiringPool(AppRuntime runtime, InstanceStore store, Clock clock, Duration window,
                        Predicate<String> stillServing, IntConsumer stoppedPort, IntToLongFunction lastRequestMillis) {
        this.stillServing = stillServing;
        this.stoppedPort = stoppedPort;
        this.lastRequestMillis = lastRequestMillis;
        this.runtime = runtime;
        this.store = store;
        this.clock = clock;
        this.window = window;
    }

    /** The instance is no longer production: stop it once the window has passed without a request to it. */
    public void retire(String deploymentId) {
        schedule(deploymentId, clock.instant().plus(window), true);
    }

    /**
     * The instance was production until now: it stays warm for the window, for an instant rollback, and every older
     * instance of its project that was still retiring stops now, so quick deploys of one app keep one previous
     * process, not one per deploy. Answers the ones stopped. They are stopped before it returns, while the caller's
     * deployment still holds its project's line: a rollback queued meanwhile finds them gone and starts its target
     * anew, instead of switching to an app about to stop.
     */
    public List<String> replaced(String deploymentId) {
        retire(deploymentId);
        String project = runtime.get(deploymentId).map(Instance::projectId).orElse(null);
        if (project == null) return List.of();
        List<String> stopped = new ArrayList<>();
        for (String other : List.copyOf(retiring.keySet())) {
            if (other.equals(deploymentId) || !runtime.get(other).map(Instance::projectId).filter(project::equals).isPresent()) continue;
            Retirement r = retiring.get(other);
            if (r == null || stillServing.test(other) || !retiring.remove(other, r)) continue;
            r.task().cancel(false);
            stopped.add(other);
        }
        for (String other : stopped) {
            try {
                stop(other);
            } catch (RuntimeException e) {
                retryLater(other, null, e);
            }
        }
        return stopped;
    }

    /** The instance is production again: keep it. Returns whether it was retiring. */
    public boolean reinstate(String deploymentId) {
        Retirement r = retiring.remove(deploymentId);
        if (r == null) return false;
        r.task().cancel(false);
        persist(deploymentId, null);
        return true;
    }

    /** Deployment id to the time it stops. */
    public Map<String, Instant> retiring() {
        Map<String, Instant> out = new TreeMap<>();
        retiring.forEach((id, r) -> out.put(id, r.stopAt()));
        return out;
    }

    /**
     * After {@link AppRuntime#recover}: schedules again the retirements stored by the previous run, in this
     * node's instance rows and in the runtime's own schedule (the cluster's).
     */
    public void resume() {
        for (StoredInstance row : store.owned((id, e) -> { })) {
            if (row.stopAfter() != null && runtime.get(row.deploymentId()).isPresent()) {
                schedule(row.deploymentId(), row.stopAfter(), false);
            }
        }
        runtime.retirementSchedule().ifPresent(own -> own.retirements().forEach((id, stopAt) -> {
            if (!retiring.containsKey(id) && runtime.get(id).isPresent()) schedule(id, stopAt, false);
        }));
    }

    private void persist(String deploymentId, Instant stopAt) {
        store.setStopAfter(deploymentId, stopAt);
        try {
            runtime.retirementSchedule().ifPresent(own -> own.retiringUntil(deploymentId, stopAt));
        } catch (RuntimeException e) {
            LOG.warn("the runtime could not record the retirement of {}: {}", deploymentId, e.getMessage());
        }
    }

    private void schedule(String deploymentId, Instant stopAt, boolean persist) {
        if (persist) persist(deploymentId, stopAt);
        // armed in the map's lock, as every timer is: see stopIfStillRetiring
        retiring.compute(deploymentId, (id, previous) -> {
            if (previous != null) previous.task().cancel(false);
            return new Retirement(stopAt, arm(id, stopAt), 0);
        });
    }

    private ScheduledFuture<?> arm(String deploymentId, Instant stopAt) {
        // rounded up: a timer a fraction of a millisecond early would find the instance not due yet
        long delay = Math.max(0, (Duration.between(clock.instant(), stopAt).toNanos() + 999_999) / 1_000_000);
        return timer.schedule(() -> Thread.ofVirtual().name("retire-" + deploymentId)
                .start(() -> stopIfStillRetiring(deploymentId, stopAt)), delay, TimeUnit.MILLISECONDS);
    }

    private void stopIfStillRetiring(String deploymentId, Instant stopAt) {
        // read in the map's lock: a timer due as it is armed fires before the retirement that armed it is in the map,
        // and read without the lock it would find the one before (or none), return, and leave the new one without a timer
        Retirement r = retiring.computeIfPresent(deploymentId, (id, current) -> current);
        if (r == null || !r.stopAt().equals(stopAt)) return;
        try {
            stopIfDue(deploymentId, r);
        } catch (RuntimeException e) {
            retryLater(deploymentId, r, e);
        }
    }

    private void stopIfDue(String deploymentId, Retirement r) {
        Instant due = idleUntil(deploymentId, r.stopAt());
        if (clock.instant().isBefore(due)) {
            // it had requests meanwhile (or the clock is behind the timer): decide again when it may be idle;
            // in the map's lock, so a reinstatement or a new retirement meanwhile keeps the last word
            retiring.computeIfPresent(deploymentId, (id, current) -> {
                if (current != r) return current;
                if (!due.equals(r.stopAt())) persist(deploymentId, due);
                return new Retirement(due, arm(deploymentId, due), r.failures());
            });
            return;
        }
        if (stillServing.test(deploymentId)) {
            // the stored stop time is cleared before the retirement disappears
            retiring.computeIfPresent(deploymentId, (id, current) -> {
                if (current != r) return current;
                persist(deploymentId, null);
                LOG.info("retired instance {} serves production again: kept", deploymentId);
                return null;
            });
            return;
        }
        if (!retiring.remove(deploymentId, r)) return;
        stop(deploymentId);
    }

    /**
     * A try that failed ({@code failed} the retirement it was, null for a replaced one): the whole decision is made
     * again later, unless a reinstatement or a new retirement came meanwhile. The stored stop time stays, so a
     * restarted server tries at once.
     */
    private void retryLater(String deploymentId, Retirement failed, RuntimeException e) {
        int failures = failed == null ? 1 : failed.failures() + 1;
        Instant retryAt = clock.instant().plus(Backoff.delay(failures, FIRST_RETRY, MAX_RETRY));
        LOG.error("retired instance {} could not be stopped ({} tries): {}; tried again at {}",
                deploymentId, failures, e.getMessage(), retryAt);
        retiring.compute(deploymentId, (id, current) -> current == null || current == failed
                ? new Retirement(retryAt, arm(deploymentId, retryAt), failures) : current);
    }

    private void stop(String deploymentId) {
        int port = runtime.get(deploymentId).map(Instance::port).orElse(0);
        // its routes go first: an edge process learns of the stop before the app's port closes, and a request
        // meanwhile wakes it (which waits for the stop to finish) instead of reaching a closing port
        if (port > 0) stoppedPort.accept(port);
        runtime.stop(deploymentId);
        LOG.info("retired instance {} stopped", deploymentId);
    }

    /** The later of the scheduled stop and a window after the instance's last request. */
    private Instant idleUntil(String deploymentId, Instant stopAt) {
        int port = runtime.get(deploymentId).map(Instance::port).orElse(0);
        long last = port > 0 ? lastRequestMillis.applyAsLong(port) : 0;
        if (last <= 0) return stopAt;
        Instant idle = Instant.ofEpochMilli(last).plus(window);
        return idle.isAfter(stopAt) ? idle : stopAt;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
