package dev.slipway.usage;

import dev.slipway.deployments.Deployment;
import dev.slipway.deployments.DeploymentStore;
import dev.slipway.isolation.CellUsage;
import dev.slipway.router.RequestStats;
import dev.slipway.runtime.AppRuntime;
import dev.slipway.runtime.Instance;
import dev.slipway.runtime.InstanceType;
import dev.slipway.runtime.ProcessState;
import org.HdrHistogram.Histogram;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Every {@link #STEP}, what each project's apps on this server used (from their cells: CPU time, memory, processes, OOM
 * kills, restarts) and served (the router's requests to their ports: count, 5xx, bytes, latency), one row per project;
 * every five minutes the closed window's rows become one, and rows past their retention go.
 */
public final class UsageSampler implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(UsageSampler.class);
    public static final Duration STEP = Duration.ofSeconds(10);
    public static final Duration ROLLUP = Duration.ofMinutes(5);
    public static final Duration SAMPLES_KEPT = Duration.ofHours(1);
    public static final Duration ROLLUPS_KEPT = Duration.ofDays(7);
    /** How long the lease of shared usage outlives its holder's last sample: three steps. */
    static final Duration LEASE = STEP.multipliedBy(3);

    private final AppRuntime runtime;
    private final RequestStats requests;
    private final DeploymentStore deployments;
    private final UsageStore store;
    private final Clock clock;
    /** Each deployment's CPU time at the last sample: what the next one's use is counted from. */
    private final Map<String, Long> lastCpu = new ConcurrentHashMap<>();
    private final Map<String, Long> lastOom = new ConcurrentHashMap<>();
    private final Map<String, InstanceType> types = new ConcurrentHashMap<>();
    private ScheduledExecutorService timer;
    /** The time of the last sample, or null before the first. */
    private Instant lastAt;
    /** The start of the last window this server rolled up, or null before its first. */
    private Instant lastRolledUp;
    /** The processes of the last sample by state ({@code running}, {@code restarting}, …): what /metrics shows. */
    private volatile Map<String, Integer> processStates = Map.of();
    /** Told each sample once it is stored (the alerts). */
    private final java.util.function.Consumer<List<UsageSample>> then;

    public UsageSampler(AppRuntime runtime, RequestStats requests, DeploymentStore deployments, UsageStore store, Clock clock,
                        java.util.function.Consumer<List<UsageSample>> then) {
        this.then = then;
        this.runtime = runtime;
        this.requests = requests;
        this.deployments = deployments;
        this.store = store;
        this.clock = clock;
    }

    /** Processes in this state at the last sample (this server's, or the cluster's while it reports them). */
    public int processes(String state) {
        return processStates.getOrDefault(state, 0);
    }

    /** Where the samples go. */
    public UsageStore store() {
        return store;
    }

    public void start() {
        timer = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("usage-sampler").factory());
        timer.scheduleAtFixedRate(() -> {
            try {
                sample();
                rollup();
            } catch (RuntimeException e) {
                LOG.warn("app usage sample failed: {}", e.toString());
            }
        }, STEP.toMillis(), STEP.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Takes one sample of every app here, stores it and tells its follower: the projects sampled. */
    public synchronized List<UsageSample> sample() {
        Instant at = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        // a row's key holds its time: two samples in one millisecond (the timer's and a caller's) get two
        if (lastAt != null && !at.isAfter(lastAt)) at = lastAt.plusMillis(1);
        lastAt = at;
        Map<Integer, RequestStats.Interval> served = requests.drain();
        Map<String, UsageSample> byProject = new LinkedHashMap<>();
        List<Instance> running = runtime.list();
        // where every server reads the same pods, one reports them: the others count only the requests they relayed
        boolean reports = !runtime.sharedUsage() || store.holdShared(at, at.plus(LEASE));
        Map<String, Integer> states = new java.util.HashMap<>();
        for (Instance i : running) {
            UsageSample s = of(i, served, at, reports, states);
            byProject.merge(i.projectId(), s, UsageSampler::plus);
        }
        processStates = Map.copyOf(states);
        List<UsageSample> out = new ArrayList<>(byProject.values());
        store.save(out);
        then.accept(out);
        List<String> ids = running.stream().map(Instance::deploymentId).toList();
        lastCpu.keySet().retainAll(ids);
        lastOom.keySet().retainAll(ids);
        types.keySet().retainAll(ids);
        return out;
    }

    private UsageSample of(Instance i, Map<Integer, RequestStats.Interval> served, Instant at, boolean reports,
                           Map<String, Integer> states) {
        String id = i.deploymentId();
        CellUsage used = reports ? runtime.usage(id).orElse(CellUsage.NONE) : CellUsage.NONE;
        long cpu = 0, oom = 0;
        if (reports) { // a server that does not report keeps no count to take the next report's difference from
            long before = lastCpu.getOrDefault(id, 0L);
            // a process restarted since: its count began again
            cpu = used.cpuNanos() >= before ? used.cpuNanos() - before : used.cpuNanos();
            lastCpu.put(id, used.cpuNanos());
            long oomBefore = lastOom.getOrDefault(id, 0L);
            oom = used.oomKills() >= oomBefore ? used.oomKills() - oomBefore : used.oomKills();
            lastOom.put(id, used.oomKills());
        }
        List<ProcessState> processes = reports ? runtime.processes(id) : List.of();
        processes.forEach(p -> states.merge(p.state(), 1, Integer::sum));
        int restarts = processes.stream().mapToInt(ProcessState::restarts).sum();
        InstanceType type = types.computeIfAbsent(id, k -> deployments.find(k).map(Deployment::instanceType)
                .map(InstanceType::of).orElse(InstanceType.STARTER));
        RequestStats.Interval r = RequestStats.Interval.empty();
        for (int port : i.ports()) {
            RequestStats.Interval got = served.get(port);
            if (got != null) r = r.plus(got);
        }
        return new UsageSample(i.projectId(), at, (int) STEP.toSeconds(), cpu / 1e9, used.memoryBytes(),
                reports ? type.memoryBytes() * Math.max(1, processes.size()) : 0, used.processes(), oom, restarts, r.requests(), r.errors5xx(),
                r.bytes(), r.latency());
    }

    /** Two deployments' samples of one project as one (production and a preview, say). */
    static UsageSample plus(UsageSample a, UsageSample b) {
        Histogram h = a.latency().copy();
        h.add(b.latency());
        return new UsageSample(a.projectId(), a.at(), a.stepSeconds(), a.cpuSeconds() + b.cpuSeconds(), a.memoryBytes() + b.memoryBytes(),
                a.memoryLimitBytes() + b.memoryLimitBytes(), a.processes() + b.processes(), a.oomKills() + b.oomKills(),
                a.restarts() + b.restarts(), a.requests() + b.requests(), a.errors5xx() + b.errors5xx(), a.bytesOut() + b.bytesOut(), h);
    }

    /**
     * Rolls up the last closed five-minute window, once, and deletes what is past its retention: work done once a window,
     * not at each sample (the store is asked only after a start, when this server may have rolled it up before).
     */
    public synchronized void rollup() {
        Instant now = clock.instant();
        long window = ROLLUP.toSeconds();
        Instant end = Instant.ofEpochSecond(now.getEpochSecond() / window * window);
        Instant start = end.minus(ROLLUP);
        if (start.equals(lastRolledUp)) return;
        lastRolledUp = start;
        if (!store.rolledUp(start, (int) window)) {
            Map<String, UsageSample> byProject = new HashMap<>();
            for (UsageSample s : store.own((int) STEP.toSeconds(), start, end)) {
                byProject.merge(s.projectId(), s, UsageSampler::over);
            }
            store.save(byProject.values().stream().map(s -> new UsageSample(s.projectId(), start, (int) window, s.cpuSeconds(),
                    s.memoryBytes(), s.memoryLimitBytes(), s.processes(), s.oomKills(), s.restarts(), s.requests(), s.errors5xx(),
                    s.bytesOut(), s.latency())).toList());
        }
        store.deleteOlder((int) STEP.toSeconds(), now.minus(SAMPLES_KEPT));
        store.deleteOlder((int) window, now.minus(ROLLUPS_KEPT));
    }

    /** Two samples of one project in time: what they used and served adds up; memory, processes and restarts are the most. */
    public static UsageSample over(UsageSample a, UsageSample b) {
        Histogram h = a.latency().copy();
        h.add(b.latency());
        return new UsageSample(a.projectId(), a.at(), a.stepSeconds(), a.cpuSeconds() + b.cpuSeconds(),
                Math.max(a.memoryBytes(), b.memoryBytes()), Math.max(a.memoryLimitBytes(), b.memoryLimitBytes()),
                Math.max(a.processes(), b.processes()), a.oomKills() + b.oomKills(), Math.max(a.restarts(), b.restarts()),
                a.requests() + b.requests(), a.errors5xx() + b.errors5xx(), a.bytesOut() + b.bytesOut(), h);
    }

    @Override
    public void close() {
        if (timer != null) timer.shutdownNow();
    }
}
