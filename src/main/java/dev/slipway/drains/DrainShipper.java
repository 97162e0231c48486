package dev.slipway.drains;

import dev.slipway.net.AddressGuard;
import dev.slipway.runtime.Backoff;
import dev.slipway.webhooks.WebhookClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Each second, ships every due drain this server holds the lease of, each on its own thread (a slow or failing target
 * delays no other drain), from the store: a line goes out after it is stored, so the app's output never waits on a
 * drain, and a drain picks up where its cursor stopped after its target or this server was down. At most
 * {@link #BATCH} lines of each source per drain and second: a project that floods its log lags in its own drain only.
 * A failed batch is sent again whole after 1, 2, 4 … 60 seconds.
 * <p>
 * Lines are read up to the highest seq seen a tick earlier: a line whose transaction took a lower seq but committed
 * after a higher one (another server's writer) is not stepped over.
 */
public final class DrainShipper implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DrainShipper.class);
    static final int BATCH = 1000;
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final Duration MAX_BACKOFF = Duration.ofMinutes(1);

    private final DrainStore store;
    private final AddressGuard guard;
    private final String node;
    private final Clock clock;
    private final WebhookClient http;
    private final Map<String, DrainSender> senders = new ConcurrentHashMap<>();
    private final Set<String> inFlight = ConcurrentHashMap.newKeySet();
    private final ExecutorService shipping = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("log-drain-", 0).factory());
    private ScheduledExecutorService timer;
    private final dev.slipway.core.Incident failing;
    /** The highest seqs of the last tick: what this one reads up to. */
    private long settledLogs = -1, settledRequests = -1;

    public DrainShipper(DrainStore store, AddressGuard guard, String node, Clock clock) {
        this.store = store;
        this.guard = guard;
        this.node = node;
        this.clock = clock;
        this.http = new WebhookClient(guard, TIMEOUT);
        this.failing = new dev.slipway.core.Incident(LOG, "log drain polls", clock);
    }

    public void start() {
        timer = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("log-drains").factory());
        timer.scheduleWithFixedDelay(() -> {
            try {
                tick();
                failing.ok();
            } catch (RuntimeException e) {
                failing.failed(e);
            }
        }, 1, 1, TimeUnit.SECONDS);
    }

    synchronized void tick() {
        Instant now = clock.instant();
        List<LogDrain> held = store.take(node, now, now.plus(LEASE));
        // a server without drains asks the store nothing more; with them, the first tick only learns where the store is
        long logs = held.isEmpty() ? -1 : store.highest("log_entries"), requests = held.isEmpty() ? -1 : store.highest("request_logs");
        long upToLogs = settledLogs, upToRequests = settledRequests;
        settledLogs = logs;
        settledRequests = requests;
        if (upToLogs < 0) held = List.of();
        Set<String> ids = ConcurrentHashMap.newKeySet();
        for (LogDrain d : held) {
            ids.add(d.id());
            if (d.nextTryAt() != null && d.nextTryAt().isAfter(now)) continue;
            if (!inFlight.add(d.id())) continue;
            shipping.submit(() -> {
                try {
                    ship(d, upToLogs, upToRequests);
                } finally {
                    inFlight.remove(d.id());
                }
            });
        }
        // a drain deleted (or taken over by another server): its connection goes
        senders.keySet().stream().filter(id -> !ids.contains(id) && !inFlight.contains(id)).toList()
                .forEach(id -> {
                    DrainSender gone = senders.remove(id);
                    if (gone != null) gone.close();
                });
    }

    private void ship(LogDrain d, long upToLogs, long upToRequests) {
        List<DrainLine> logs = d.ships(LogDrain.LOGS) ? store.logs(d.projectId(), d.logCursor(), upToLogs, BATCH) : List.of();
        List<DrainLine> requests = d.ships(LogDrain.REQUESTS) ? store.requests(d.projectId(), d.requestCursor(), upToRequests, BATCH)
                : List.of();
        long logCursor = logs.isEmpty() ? d.logCursor() : logs.getLast().seq();
        long requestCursor = requests.isEmpty() ? d.requestCursor() : requests.getLast().seq();
        if (logs.isEmpty() && requests.isEmpty()) return;
        List<DrainLine> lines = new ArrayList<>(logs.size() + requests.size());
        lines.addAll(logs);
        lines.addAll(requests);
        DrainSender sender = senders.computeIfAbsent(d.id(), id -> d.kind().equals("syslog")
                ? new SyslogSender(guard, TIMEOUT, node) : new HttpsSender(http));
        try {
            sender.send(d, lines);
            store.shipped(d.id(), logCursor, requestCursor, lines.size());
        } catch (AddressGuard.Refused | TimeoutException | java.io.IOException | RuntimeException e) {
            Instant now = clock.instant();
            Duration backoff = Backoff.delay(d.failures() + 1, Duration.ofSeconds(1), MAX_BACKOFF);
            String why = e instanceof TimeoutException ? "no answer within " + TIMEOUT.toSeconds() + " s"
                    : e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            store.failed(d.id(), why, now, now.plus(backoff));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        if (timer != null) timer.shutdownNow();
        shipping.shutdownNow();
        senders.values().forEach(DrainSender::close);
        senders.clear();
        http.close();
    }
}
