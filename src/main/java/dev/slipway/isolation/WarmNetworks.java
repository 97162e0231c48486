package dev.slipway.isolation;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Cell networks made ready before the cells that use them. Making one costs 50–150 ms here, nearly all of it
 * pasta's start (kernel time), and every app start, wake, cold rollback and build step used to wait for it.
 * A ready one is taken in no time and its replacement is made in the background. Each network still serves
 * exactly one cell and goes with it: nothing is shared between cells, let alone tenants.
 * <p>
 * Two kinds are kept: {@code open} ones with a loopback port forwarded in (for apps: the runtime asks for
 * the port first, {@link #reservePort}, and starts the app on it) and {@code closed} ones (build steps, with
 * the ports every build step reaches forwarded out: a configured registry on this host). A cell that needs
 * another host port forwarded out (its database on this host) gets a network made for it.
 */
final class WarmNetworks {
    private static final Logger LOG = LoggerFactory.getLogger(WarmNetworks.class);
    /** A ready network copies the host's addresses and routes when made: it is remade after this. */
    private static final Duration FRESH_FOR = Duration.ofMinutes(10);
    /** A reserved port whose app never started (its start failed before the cell) is given up after this. */
    private static final Duration RESERVED_FOR = Duration.ofMinutes(2);
    private static final Duration RETRY_AFTER = Duration.ofSeconds(5);
    /**
     * How long the next network waits for an app that took a ready one to answer: making a network is 50–100 ms of
     * kernel time, which slowed a cold rollback's node start from about 360 to 410–470 ms on 2 cores.
     */
    static final Duration QUIET_WHILE_STARTING = Duration.ofSeconds(2);

    private final Networks networks;
    private final List<Integer> buildForwards;
    private final int perKind;
    private final AtomicLong seq = new AtomicLong();
    /** Names this run's networks apart from those an earlier run made, which adopted cells still use. */
    private final String run = Long.toString(System.currentTimeMillis(), 36);
    private final Object lock = new Object();
    private final Object closing = new Object();
    // guarded by lock
    private final ArrayDeque<CellNetwork> open = new ArrayDeque<>();
    private final ArrayDeque<CellNetwork> closed = new ArrayDeque<>();
    private final Map<Integer, CellNetwork> reserved = new HashMap<>();
    private boolean started;
    private boolean stopped;
    /** System.nanoTime() until which no network is made: an app is starting in the one it took. */
    private long quietUntil = System.nanoTime();
    private Thread filler;
    private Thread exitHook;

    /** @param perKind how many of each kind are kept ready; 0 turns this off (every network is made on demand) */
    WarmNetworks(Networks networks, List<Integer> buildForwards, int perKind) {
        this.networks = networks;
        this.buildForwards = List.copyOf(buildForwards);
        this.perKind = perKind;
    }

    /**
     * The port of a ready open network, held for the app cell that will be started with it; empty when none
     * is ready (the caller picks a free port and the cell's network is made when it starts).
     */
    OptionalInt reservePort() {
        synchronized (lock) {
            startFilling();
            CellNetwork n = open.poll();
            if (n == null) return OptionalInt.empty();
            reserved.put(n.port(), n.renewed());
            quietUntil = System.nanoTime() + QUIET_WHILE_STARTING.toNanos();
            lock.notifyAll();
            return OptionalInt.of(n.port());
        }
    }

    /**
     * A ready network for a cell, or null when it must be made for it. A reserved network that does not fit
     * (the cell needs forwards out) is removed first, so that its port is free for the one made instead.
     */
    CellNetwork take(int port, List<Integer> forwards) {
        CellNetwork n;
        boolean fits;
        synchronized (lock) {
            startFilling();
            if (port > 0) {
                n = reserved.remove(port);
                fits = forwards.isEmpty();
            } else {
                n = forwards.equals(buildForwards) ? closed.poll() : null;
                fits = true;
            }
            lock.notifyAll();
        }
        if (n != null && !fits) {
            networks.remove(n);
            return null;
        }
        return n;
    }

    /** The app that took a ready network answered, or its start failed: the next network may be made now. */
    void started() {
        synchronized (lock) {
            quietUntil = System.nanoTime();
            lock.notifyAll();
        }
    }

    /** Whether the next network waits for a starting app now. */
    boolean quiet() {
        synchronized (lock) {
            return quietUntil - System.nanoTime() > 0;
        }
    }

    /** How many are ready now, open and closed (for tests and the log). */
    int[] ready() {
        synchronized (lock) {
            return new int[]{open.size(), closed.size()};
        }
    }

    /**
     * Stops making networks and removes every ready and reserved one, and one being made. Called at a clean
     * stop and by the exit hook (both may run at once at the JVM's exit: the second waits for the first).
     */
    void close() {
        synchronized (closing) {
            Thread t;
            synchronized (lock) {
                stopped = true;
                lock.notifyAll();
                t = filler;
            }
            if (t != null && t != Thread.currentThread()) {
                try {
                    t.join(Duration.ofSeconds(5)); // a network being made is removed by the filler itself
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            removeAll();
            Thread hook;
            synchronized (lock) {
                hook = exitHook;
                exitHook = null;
            }
            if (hook != null && hook != Thread.currentThread()) {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException exiting) {
                    // the JVM is exiting: the hook runs, and waits here for this close
                }
            }
        }
    }

    /** Starts making networks ahead (at the server's start, once leftovers are swept). */
    void begin() {
        synchronized (lock) {
            startFilling();
        }
    }

    private String nextName() {
        return "w" + run + "-" + seq.incrementAndGet();
    }

    private void startFilling() {
        if (started || stopped || perKind <= 0) return;
        started = true;
        filler = Thread.ofPlatform().daemon().name("warm-networks").start(this::fill);
        // ready networks are daemons outside the JVM: an exit without close() must not leave them behind
        exitHook = new Thread(this::close, "warm-networks-exit");
        Runtime.getRuntime().addShutdownHook(exitHook);
    }

    private void fill() {
        while (true) {
            List<CellNetwork> stale = new ArrayList<>();
            boolean openNeeded;
            synchronized (lock) {
                while (!stopped && collectStale(stale) && open.size() >= perKind && closed.size() >= perKind) {
                    try {
                        lock.wait(Duration.ofSeconds(30).toMillis());
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                try {
                    for (long wait; !stopped && (wait = quietUntil - System.nanoTime()) > 0; ) {
                        lock.wait(Math.max(1, wait / 1_000_000));
                    }
                } catch (InterruptedException e) {
                    return;
                }
                if (stopped) return;
                openNeeded = open.size() < perKind;
            }
            stale.forEach(networks::remove);
            if (!openNeeded && closedFull()) continue;
            try {
                CellNetwork n = openNeeded ? networks.make(nextName(), freePort(), List.of(), true)
                        : networks.make(nextName(), 0, buildForwards, true);
                boolean keep;
                synchronized (lock) {
                    keep = !stopped;
                    if (keep) (openNeeded ? open : closed).add(n);
                }
                if (!keep) networks.remove(n);
            } catch (IOException | RuntimeException e) {
                LOG.warn("could not make a cell network ahead of time (cells make their own meanwhile): {}", e.getMessage());
                synchronized (lock) {
                    try {
                        if (!stopped) lock.wait(RETRY_AFTER.toMillis());
                    } catch (InterruptedException ie) {
                        return;
                    }
                }
            }
        }
    }

    private boolean closedFull() {
        synchronized (lock) {
            return closed.size() >= perKind;
        }
    }

    /** Moves networks past their time into {@code stale}; true when there were none (the filler may wait). */
    private boolean collectStale(List<CellNetwork> stale) {
        long now = System.nanoTime();
        for (ArrayDeque<CellNetwork> q : List.of(open, closed)) {
            for (Iterator<CellNetwork> it = q.iterator(); it.hasNext(); ) {
                CellNetwork n = it.next();
                if (now - n.madeAt() > FRESH_FOR.toNanos()) {
                    it.remove();
                    stale.add(n);
                }
            }
        }
        for (Iterator<CellNetwork> it = reserved.values().iterator(); it.hasNext(); ) {
            CellNetwork n = it.next();
            if (now - n.madeAt() > RESERVED_FOR.toNanos()) {
                it.remove();
                stale.add(n);
            }
        }
        return stale.isEmpty();
    }

    private void removeAll() {
        List<CellNetwork> all = new ArrayList<>();
        synchronized (lock) {
            all.addAll(open);
            all.addAll(closed);
            all.addAll(reserved.values());
            open.clear();
            closed.clear();
            reserved.clear();
        }
        all.forEach(networks::remove);
    }

    /** A loopback port nothing listens on now; pasta binds it on 127.0.0.1 and holds it from then on. */
    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
