package dev.slipway.store;

import dev.slipway.core.Incident;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
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
    private volatile String away;
    private volatile boolean closed;
    private Thread probe;

    public StoreHealth(Database database, Clock clock) {
        this.database = database;
        this.incident = new Incident(LOG, "the store", clock);
    }

    /** Reports a failure: true when it says the store is away (it is then until the probe reaches it again). */
    public boolean failed(Throwable e) {
        if (StoreFailure.unavailable(e).isEmpty()) return false;
        incident.failed(e);
        synchronized (this) {
            if (away == null) {
                away = Incident.reason(e);
                if (!closed) probe = Thread.ofVirtual().name("store-probe").start(this::probe);
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
            if (database.reachable()) {
                synchronized (this) {
                    away = null;
                    probe = null;
                }
                incident.ok();
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
