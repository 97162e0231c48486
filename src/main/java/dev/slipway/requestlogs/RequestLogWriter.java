package dev.slipway.requestlogs;

import dev.slipway.core.Incident;
import dev.slipway.logs.LogText;
import dev.slipway.router.RequestLog;
import dev.slipway.runtime.AppRuntime;
import dev.slipway.runtime.Instance;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Each second, the router's request lines (this server's relay's and its edge's) go to the store under the deployment
 * whose instance had the port. A line whose port no instance has now (the app stopped since) is dropped. When the store
 * cannot take them they are kept for the next try, up to the router's bound.
 */
public final class RequestLogWriter implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RequestLogWriter.class);
    private static final long EVERY_MILLIS = 1000;

    private final RequestLog log;
    private final AppRuntime runtime;
    private final RequestLogStore store;
    private final List<RequestLine> pending = new ArrayList<>();
    private final Incident failing;
    private ScheduledExecutorService timer;

    public RequestLogWriter(RequestLog log, AppRuntime runtime, RequestLogStore store, Clock clock) {
        this.failing = new Incident(LOG, "request log writes", clock);
        this.log = log;
        this.runtime = runtime;
        this.store = store;
    }

    public void start() {
        timer = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("request-log-writer").factory());
        timer.scheduleWithFixedDelay(() -> {
            try {
                write();
                failing.ok();
            } catch (RuntimeException e) {
                failing.failed(e);
            }
        }, EVERY_MILLIS, EVERY_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** Writes what the router logged until now: the lines written. */
    public synchronized int write() {
        List<RequestLog.Line> lines = log.drain();
        if (!lines.isEmpty()) {
            Map<Integer, Instance> byPort = new HashMap<>();
            for (Instance i : runtime.list()) for (int port : i.ports()) byPort.put(port, i);
            for (RequestLog.Line l : lines) {
                Instance i = byPort.get(l.port());
                if (i == null) continue;
                pending.add(new RequestLine(0, i.projectId(), i.deploymentId(), Instant.ofEpochMilli(l.atMillis()),
                        LogText.clean(l.method()), LogText.clean(l.path()), l.status(), l.micros(), l.bytes(), l.client()));
            }
        }
        if (pending.isEmpty()) return 0;
        store.save(pending);
        int n = pending.size();
        pending.clear();
        return n;
    }

    @Override
    public void close() {
        if (timer != null) timer.shutdownNow();
    }
}
