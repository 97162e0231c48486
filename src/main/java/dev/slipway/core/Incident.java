package dev.slipway.core;

import org.slf4j.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * The log of a loop that may fail the same way many times in a row (a poll while the store is away): one line when
 * the failing starts, with the reason; at most one a minute while it lasts, with how many failures it counted; one
 * when it ends. A log that grows with the length of an outage hides what matters in it.
 */
public final class Incident {
    static final Duration REPEAT = Duration.ofMinutes(1);

    private final Logger log;
    private final String what;
    private final Clock clock;
    private Instant since;
    private Instant lastLogged;
    private long failures;
    private long unlogged;

    /** @param what what fails, as the log says it ("job claims", "webhook polls") */
    public Incident(Logger log, String what, Clock clock) {
        this.log = log;
        this.what = what;
        this.clock = clock;
    }

    public synchronized void failed(Throwable e) {
        Instant now = clock.instant();
        failures++;
        if (since == null) {
            since = now;
            lastLogged = now;
            log.warn("{} failing: {}", what, reason(e));
            return;
        }
        unlogged++;
        if (Duration.between(lastLogged, now).compareTo(REPEAT) >= 0) {
            log.warn("{} still failing ({} more failures, for {} s): {}", what, unlogged,
                    Duration.between(since, now).toSeconds(), reason(e));
            lastLogged = now;
            unlogged = 0;
        }
    }

    public synchronized void ok() {
        if (since == null) return;
        log.info("{} recovered after {} s ({} {})", what, Duration.between(since, clock.instant()).toSeconds(), failures,
                failures == 1 ? "failure" : "failures");
        since = null;
        failures = 0;
        unlogged = 0;
    }

    /** What went wrong, in one line: a store's failure says why it is away (its messages carry no statement). */
    public static String reason(Throwable e) {
        Throwable root = e;
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof java.sql.SQLException) {
                root = t;
                break;
            }
        }
        String m = root.getMessage();
        if (m == null) return root.getClass().getSimpleName();
        int line = m.indexOf('\n');
        if (line >= 0) m = m.substring(0, line);
        m = m.strip();
        return m.length() > 300 ? m.substring(0, 300) + "…" : m;
    }
}
