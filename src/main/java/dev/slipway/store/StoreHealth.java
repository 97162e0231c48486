package dev.slipway.store;

import dev.slipway.core.Incident;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.Optional;

/**
 * Whether the store is away: set by a request or a loop whose query failed for that reason ({@link StoreFailure}),
 * cleared by a probe once a fresh connection answers again. While it is away, the API answers at once with a 503
 * rather than each request waiting for a connection; the incident is logged once when it starts and once when it ends.
 */
public final class StoreHealth implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StoreHealth.class);
    private static final Duration PROBE = Duration.ofSeconds(1);

    private final Database database;
    private final Incident incident;
    private final Clock clock;
    private final BiConsumer<String, Object> events;
    private volatile String away;
    private Instant awaySince;
    private volatile boolean closed;
    private Thread probe;

    /**
     * @param events the operator's events: {@code store.unavailable} when it goes away (sent at once, since it cannot be
     *               queued in the store), {@code store.recovered} once it answers again
     */
    public StoreHealth(Database database, Clock clock, BiConsumer<String, Object> events) {
        this.database = database;
        this.clock = clock;
        this.events = events;
        this.incident = new Incident(LOG, "the store", clock);
    }

    /** Reports a failure: true when it says the store is away (it is then until the probe reaches it again). */
    public boolean failed(Throwable e) {
        if (StoreFailure.unavailable(e).isEmpty()) return false;
        incident.failed(e);
        synchronized (this) {
            if (away == null) {
                away = Incident.reason(e);
                awaySince = clock.instant();
                if (!closed) probe = Thread.ofVirtual().name("store-probe").start(this::probe);
                Map<String, Object> data = new LinkedHashMap<>();
                data.put("unavailable_since", awaySince.truncatedTo(ChronoUnit.SECONDS).toString());
                data.put("reason", away);
                // not on the caller's thread (a request): the store cannot take it, and it is sent at once instead
                Thread.ofVirtual().name("store-lost").start(() -> events.accept("store.unavailable", data));
            }
        }
        return true;
    }

    /** Why the store is away; empty while it answers. */
    public Optional<String> away() {
        return Optional.ofNullable(away);
    }

    private void probe() {
        while (!closed) {
            try {
                Thread.sleep(PROBE); // the probe's period, not a wait for work
            } catch (InterruptedException e) {
                return;
            }
            if (database.answers() && database.reachable()) { // the store, and the pool's connections to it again
                Map<String, Object> data = new LinkedHashMap<>();
                synchronized (this) {
                    data.put("unavailable_since", awaySince.truncatedTo(ChronoUnit.SECONDS).toString());
                    data.put("unavailable_seconds", Duration.between(awaySince, clock.instant()).toSeconds());
                    data.put("reason", away);
                    away = null;
                    probe = null;
                }
                incident.ok();
                events.accept("store.recovered", data);
                return;
            }
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (probe != null) probe.interrupt();
    }
}
