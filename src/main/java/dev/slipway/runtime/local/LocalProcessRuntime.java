package dev.slipway.runtime.local;

import dev.slipway.build.detect.Procfile;
import dev.slipway.build.detect.StartCommands;
import dev.slipway.isolation.Confinement;
import dev.slipway.isolation.Unconfined;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;
import dev.slipway.runtime.AppRuntime;
import dev.slipway.runtime.ProcessState;
import dev.slipway.runtime.AppSpec;
import dev.slipway.runtime.Instance;
import dev.slipway.runtime.InstanceStore;
import dev.slipway.runtime.ProductionAddresses;
import dev.slipway.runtime.RecoveryReport;
import dev.slipway.runtime.Replicas;
import dev.slipway.runtime.ReleaseCommands;
import dev.slipway.runtime.RetirementSchedule;
import dev.slipway.runtime.RuntimeSettings;
import dev.slipway.runtime.StartFailedException;
import dev.slipway.runtime.StoredInstance;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Function;

/** The embedded runtime: each app is a local process in its own session, listening on a loopback port. */
public final class LocalProcessRuntime implements AppRuntime {
    private static final Logger LOG = LoggerFactory.getLogger(LocalProcessRuntime.class);
    /** How long recovery waits for a killed leftover's port before it picks another. */
    private static final Duration RECORDED_PORT_WAIT = Duration.ofSeconds(2);

    private final RuntimeSettings options;
    private final InstanceStore store;
    private final Confinement confinement;
    private final LocalReleases releases;
    /** Each deployment's other processes, while its app runs here. */
    private final Map<String, List<WorkerProcess>> workers = new ConcurrentHashMap<>();
    private final Supervisor.Context ctx;
    private volatile Runnable servingChanged = () -> {};
    private final VolumeDisks disks;

    /** Set as {@link #close} begins: workers of an app that became healthy meanwhile are not started. */
    private volatile boolean closing;
    private final ScheduledExecutorService timer;
    private final Map<String, Supervisor> running = new ConcurrentHashMap<>();
    /** {@link #running} by port: the router asks {@link #serves} on every request, in O(1) without allocating. */
    private final AtomicReferenceArray<Supervisor> byPort = new AtomicReferenceArray<>(65_536);
    private final Map<String, Object> startLocks = new ConcurrentHashMap<>();

    /**
     * Unconfined: apps run as plain processes of the server (tests of the runtime itself), their output files in the
     * temporary directory, one folder per node.
     */
    public LocalProcessRuntime(InstanceStore store, RuntimeSettings options, Clock clock) {
        this(store, options, clock, System.getenv(), new Unconfined(),
                Path.of(System.getProperty("java.io.tmpdir"), "slipway-output", store.nodeId()));
    }

    /** @param outputDir where the apps' output files are: a restarted server must find them there */
    public LocalProcessRuntime(InstanceStore store, RuntimeSettings options, Clock clock, Confinement confinement, Path outputDir) {
        this(store, options, clock, System.getenv(), confinement, outputDir);
    }

    LocalProcessRuntime(InstanceStore store, RuntimeSettings options, Clock clock, Map<String, String> serverEnv,
                        Confinement confinement, Path outputDir) {
        this(store, options, clock, serverEnv, confinement, outputDir, null);
    }

    /** @param volumesDir where the projects' volumes are ({@link VolumeDisks}); null: this runtime keeps none */
    public LocalProcessRuntime(InstanceStore store, RuntimeSettings options, Clock clock, Confinement confinement, Path outputDir,
                               Path volumesDir) {
        this(store, options, clock, System.getenv(), confinement, outputDir, volumesDir);
    }

    LocalProcessRuntime(InstanceStore store, RuntimeSettings options, Clock clock, Map<String, String> serverEnv,
                        Confinement confinement, Path outputDir, Path volumesDir) {
        this.disks = volumesDir == null ? null : new VolumeDisks(volumesDir, confinement);
        Supervisor.Volumes volumes = disks == null ? Supervisor.Volumes.NONE : (projectId, asked) -> {
            // before any mount: only the sandbox can put a volume at its path
            if (!asked.isEmpty() && !confinement.isolated()) {
                throw new IOException("a volume is mounted only in the sandbox (at its path in the cell), and this server has none");
            }
            return disks.mount(projectId, asked);
        };
        this.options = options;
        this.store = store;
        this.confinement = confinement;
        this.timer = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("runtime-timer").factory());
        this.ctx = new Supervisor.Context(options, store, clock, new HealthCheck(), timer, Map.copyOf(serverEnv), confinement,
                this::move, outputDir, () -> servingChanged.run(), volumes);
        this.releases = new LocalReleases(confinement, store.nodeId(), Map.copyOf(serverEnv), options.stopGrace(), volumes);
    }

    /** How apps are confined here. */
    public Confinement confinement() {
        return confinement;
    }

    @Override
    public Instance start(AppSpec spec, LogSink log) {
        // one start per deployment at a time; different deployments start in parallel
        synchronized (startLocks.computeIfAbsent(spec.deploymentId(), k -> new Object())) {
            Supervisor existing = running.get(spec.deploymentId());
            if (existing != null) return withReplicas(existing.instance());
            Instance first = startNew(spec, log);
            try {
                startReplicas(spec, 1, spec.replicas(), log);
            } catch (StartFailedException e) {
                stopLocked(spec.deploymentId());
                throw e;
            }
            return withReplicas(first);
        }
    }

    /**
     * Runs the deployment's web process as {@code replicas} instances: the missing ones start (each healthy before
     * this returns), the extra ones stop, the highest first. Empty when the deployment does not run here.
     */
    @Override
    public Optional<Instance> scale(String deploymentId, int replicas, LogSink log) {
        if (replicas < 1 || replicas > Replicas.MAX) throw new IllegalArgumentException("replicas must be 1 to " + Replicas.MAX);
        synchronized (startLocks.computeIfAbsent(deploymentId, k -> new Object())) {
            Supervisor first = running.get(deploymentId);
            if (first == null || first.stopping()) return Optional.empty();
            int now = 1;
            while (now < Replicas.MAX && running.containsKey(Replicas.key(deploymentId, now))) now++;
            if (replicas > now) {
                log.log(Level.INFO, "Scaling web from " + now + " to " + replicas + " instances");
                startReplicas(first.spec(), now, replicas, log);
            } else if (replicas < now) {
                log.log(Level.INFO, "Scaling web from " + now + " to " + replicas + " instances");
                for (int i = Replicas.MAX - 1; i >= replicas; i--) stopOne(Replicas.key(deploymentId, i));
            }
            return Optional.of(withReplicas(first.instance()));
        }
    }

    /** Starts replicas {@code from} to {@code to - 1} of the app, one after another, each healthy before the next. */
    private void startReplicas(AppSpec spec, int from, int to, LogSink log) {
        for (int i = from; i < to; i++) {
            if (running.containsKey(Replicas.key(spec.deploymentId(), i))) continue;
            log.log(Level.INFO, "Starting instance " + (i + 1) + " of " + to + " of web");
            startNew(spec.replica(i), log);
        }
    }

    /** The instance with every port its replicas serve on now, its own first. */
    private Instance withReplicas(Instance first) {
        List<Integer> ports = new ArrayList<>(List.of(first.port()));
        for (int i = 1; i < Replicas.MAX; i++) {
            Supervisor r = running.get(Replicas.key(first.deploymentId(), i));
            if (r != null && !r.stopping()) ports.add(r.port());
        }
        return ports.size() == 1 ? first : first.withPorts(ports);
    }

    private Instance startNew(AppSpec spec, LogSink log) {
        if (!Files.isDirectory(spec.artifact().root())) {
            throw new StartFailedException("the artifact directory " + spec.artifact().root() + " does not exist");
        }
        int port = pickPort();
        Supervisor s = register(spec, log, port);
        log.log(Level.INFO, "Starting " + String.join(" ", spec.artifact().startCommand()) + " on port " + port);
        HealthCheck.Outcome outcome;
        try {
            outcome = launchAndAwait(s, log);
        } catch (IOException | RuntimeException e) {
            discard(s);
            String message = "Could not run " + spec.artifact().startCommand().getFirst() + ": " + e.getMessage();
            log.log(Level.ERROR, message);
            throw new StartFailedException(message, e);
        }
        if (outcome instanceof HealthCheck.Outcome.Healthy) {
            s.supervise();
            if (Replicas.indexOf(spec.deploymentId()) == 0) startWorkers(spec, s.output());
            return s.instance();
        }
        String message = switch (outcome) {
            case HealthCheck.Outcome.Exited x -> {
                List<String> output = s.lastOutput();
                yield "App " + s.exitReason(x.exitCode()) + " during start-up" + errorLine(output).map(e -> ": " + e).orElse("")
                        + lastLines(output);
            }
            case HealthCheck.Outcome.TimedOut t -> "App did not answer HTTP on port " + port + " within "
                    + Supervisor.human(options.healthTimeout()) + " (" + t.lastProblem() + "); it must listen on $PORT"
                    + lastLines(s.lastOutput());
            case HealthCheck.Outcome.WrongPort w -> wrongPort(port, w.listening()) + lastLines(s.lastOutput());
            case HealthCheck.Outcome.Healthy h -> throw new AssertionError();
        };
        discard(s);
        log.log(Level.ERROR, message);
        throw new StartFailedException(message);
    }

    /** The one-line diagnosis of an app that listens, but not on the port it was given. */
    static String wrongPort(int port, java.util.Set<Integer> listening) {
        String ports = listening.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(", "));
        return "App listens on port " + ports + ", not on $PORT (" + port + "): make it listen on the port in the PORT "
                + "environment variable, e.g. port: Number(process.env.PORT) || " + listening.iterator().next();
    }

    /**
     * The line that names the error in a crash's output (Node's {@code Error: Cannot find module 'x'}, Python's
     * {@code ModuleNotFoundError: …}, Java's {@code Caused by: …Exception: …}): the last line that is not a stack
     * frame and names an error or exception. A trace pushes it far above the last lines.
     */
    static java.util.Optional<String> errorLine(List<String> lines) {
        for (String line : lines.reversed()) {
            if (STACK_FRAME.matcher(line).find()) continue;
            if (ERROR_NAME.matcher(line).find()) return java.util.Optional.of(line.strip());
        }
        return java.util.Optional.empty();
    }

    private static final java.util.regex.Pattern STACK_FRAME = java.util.regex.Pattern.compile("^\\s+at\\s|^\\s+File \"");
    private static final java.util.regex.Pattern ERROR_NAME = java.util.regex.Pattern.compile("(?<![\\w.$])[\\w.$]*(?:Error|Exception)(?::|$)");

    private static String lastLines(List<String> lines) {
        if (lines.isEmpty()) return "; it printed nothing";
        List<String> last = lines.subList(Math.max(0, lines.size() - 5), lines.size());
        return "; last output:\n" + String.join("\n", last);
    }

    /** Kills a failed start's process group and forgets it. */
    private void discard(Supervisor s) {
        s.stop(options.stopGrace());
        untrack(s);
        store.delete(s.spec().deploymentId());
    }

    /** A port no instance of ours has: the confinement's ready one when it has one (its network is made). */
    private int pickPort() {
        for (int attempt = 0; attempt < 20; attempt++) {
            int port = confinement.reservePort().orElseGet(FreePorts::pick);
            if (onPort(port) == null) return port;
        }
        throw new IllegalStateException("no free port");
    }

    /**
     * A restart found its port taken by a process that is not the instance's: it gets a new one. The old port
     * stops being served at once, so the router's routes to it go stale and find the instance again through
     * {@link #active}, never whatever listens there now.
     */
    private int move(Supervisor s, int from) {
        int to = pickPort();
        s.movedTo(to);
        byPort.set(to, s);
        byPort.compareAndSet(from, s, null);
        servingChanged.run();
        return to;
    }

    @Override
    public Optional<Instance> get(String deploymentId) {
        return Optional.ofNullable(running.get(deploymentId)).map(s -> withReplicas(s.instance()));
    }

    @Override
    public Optional<Instance> active(String deploymentId) {
        return Optional.ofNullable(running.get(deploymentId)).filter(s -> !s.stopping()).map(s -> withReplicas(s.instance()));
    }

    /**
     * Holds the deployment's start lock, so a start asked for meanwhile (a wake-up) waits for the old
     * process to be gone: never two processes of one deployment. A stopping instance is neither
     * returned by {@link #get} nor {@link #serves} its port any more.
     */
    @Override
    public void stop(String deploymentId) {
        String id = Replicas.deploymentOf(deploymentId);
        synchronized (startLocks.computeIfAbsent(id, k -> new Object())) {
            stopLocked(id);
        }
    }

    /** Stops the deployment's instances, its replicas first (they are not served once their stop begins). */
    private void stopLocked(String deploymentId) {
        try (ExecutorService stops = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 1; i < Replicas.MAX; i++) {
                String key = Replicas.key(deploymentId, i);
                if (running.containsKey(key)) stops.submit(() -> stopOne(key));
            }
        }
        stopOne(deploymentId);
        stopWorkers(deploymentId);
    }

    private void stopOne(String key) {
        store.markStopped(key);
        Supervisor s = running.get(key);
        if (s != null) {
            s.stop(options.stopGrace());
            untrack(s);
        }
        store.delete(key);
    }

    /** Each deployment once, with its replicas' ports. */
    @Override
    public List<Instance> list() {
        return running.values().stream().filter(s -> Replicas.indexOf(s.spec().deploymentId()) == 0)
                .map(s -> withReplicas(s.instance())).sorted(Comparator.comparing(Instance::deploymentId)).toList();
    }

    @Override
    public boolean restarting(int port) {
        Supervisor s = onPort(port);
        return s != null && s.restarting();
    }

    @Override
    public void onServingChange(Runnable listener) {
        servingChanged = listener;
    }

    @Override
    public boolean serves(int port) {
        Supervisor s = onPort(port);
        return s != null && !s.stopping();
    }

    @Override
    public boolean isolated() {
        return confinement.isolated();
    }

    @Override
    public List<String> regions() {
        return options.regions();
    }

    @Override
    public String instanceType() {
        return options.instanceType();
    }

    /** None: production is routed to the instance itself. */
    @Override
    public Optional<ProductionAddresses> productionAddresses() {
        return Optional.empty();
    }

    /** None of its own: the schedule is in this node's instance rows, which the retiring pool reads. */
    @Override
    public Optional<RetirementSchedule> retirementSchedule() {
        return Optional.empty();
    }

    @Override
    public void redirectOutput(String deploymentId, LogSink to) {
        for (int i = 0; i < Replicas.MAX; i++) {
            Supervisor s = running.get(Replicas.key(deploymentId, i));
            if (s != null) s.output().to(to);
        }
    }

    @Override
    public Optional<ReleaseCommands> releaseCommands() {
        return Optional.of(releases);
    }

    @Override
    public List<ProcessState> processes(String deploymentId) {
        Supervisor web = running.get(deploymentId);
        if (web == null) return List.of();
        List<ProcessState> out = new ArrayList<>(List.of(web.state()));
        for (int i = 1; i < Replicas.MAX; i++) {
            Supervisor r = running.get(Replicas.key(deploymentId, i));
            if (r != null) {
                ProcessState st = r.state();
                out.add(new ProcessState(st.type() + "." + (i + 1), st.state(), st.restarts()));
            }
        }
        workers.getOrDefault(deploymentId, List.of()).forEach(w -> out.add(w.state()));
        return List.copyOf(out);
    }

    @Override
    public Optional<dev.slipway.isolation.CellUsage> usage(String deploymentId) {
        Optional<dev.slipway.isolation.CellUsage> total = Optional.empty();
        for (int i = 0; i < Replicas.MAX; i++) {
            Supervisor s = running.get(Replicas.key(deploymentId, i));
            if (s != null) total = add(total, s.usage());
        }
        for (WorkerProcess w : workers.getOrDefault(deploymentId, List.of())) total = add(total, w.usage());
        return total;
    }

    private static Optional<dev.slipway.isolation.CellUsage> add(Optional<dev.slipway.isolation.CellUsage> a,
                                                               Optional<dev.slipway.isolation.CellUsage> b) {
        if (b.isEmpty()) return a;
        return Optional.of(a.map(x -> x.plus(b.get())).orElse(b.get()));
    }

    @Override
    public void deleteVolumes(String projectId) throws IOException {
        if (disks != null) disks.delete(projectId);
    }

    @Override
    public boolean runsWorkers() {
        return true;
    }

    /**
     * After a restart of the server: the instances that should run and still do (their process is the one recorded, its
     * cell whole) are adopted as they are; every other process of this node is killed, and what should run is started.
     */
    @Override
    public RecoveryReport recover(Function<String, LogSink> logs) {
        // the marker scan below would take our own live processes for leftovers
        if (!running.isEmpty()) throw new IllegalStateException("recover() runs once, before any start");
        long t0 = System.nanoTime();
        List<StoredInstance> rows = store.owned((id, e) ->
                LOG.error("runtime instance {} cannot be read and is not restarted: {}", id, e.getMessage()));
        Instant now = ctx.clock().instant();
        List<StoredInstance> toRun = new ArrayList<>();
        for (StoredInstance row : rows) {
            boolean retiredAndDue = row.stopAfter() != null && !row.stopAfter().isAfter(now);
            if (row.desired() == StoredInstance.DesiredState.RUNNING && !retiredAndDue) toRun.add(row);
        }
        Map<String, Adoptee> live = new java.util.LinkedHashMap<>();
        Set<String> cells = new HashSet<>();
        Set<Long> groups = new HashSet<>();
        Map<Long, List<Long>> processGroups = ProcessGroups.byGroup();
        for (StoredInstance row : toRun) {
            if (!Adoption.stillRuns(row, store.nodeId(), processGroups)) continue;
            Adoptee a = adoptee(row, logs.apply(Replicas.deploymentOf(row.deploymentId())), processGroups);
            live.put(row.deploymentId(), a);
            cells.add(row.deploymentId());
            groups.add(row.pgid());
            a.workerPids().forEach((w, pid) -> {
                cells.add(w.cell(LaunchCommand.SANDBOX_TMP).name());
                groups.add(pid);
            });
        }
        confinement.sweep(cells);
        int killed = killLeftovers(rows, groups);
        for (StoredInstance row : rows) if (!toRun.contains(row)) store.delete(row.deploymentId());
        List<Instance> healthy = Collections.synchronizedList(new ArrayList<>());
        List<String> failing = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger adopted = new AtomicInteger();
        try (ExecutorService starts = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> done = new ArrayList<>();
            for (StoredInstance row : toRun) {
                done.add(starts.submit(() -> {
                    Adoptee a = live.get(row.deploymentId());
                    LogSink log = a != null ? a.log() : logs.apply(Replicas.deploymentOf(row.deploymentId()));
                    if (a != null && adopt(a)) {
                        adopted.incrementAndGet();
                        healthy.add(get(row.deploymentId()).orElseThrow());
                    } else if (restartRecovered(row, log)) {
                        healthy.add(get(row.deploymentId()).orElseThrow());
                    } else {
                        failing.add(row.deploymentId());
                    }
                }));
            }
            for (Future<?> f : done) {
                try {
                    f.get();
                } catch (Exception e) {
                    LOG.error("recovery of an instance failed", e);
                }
            }
        }
        LOG.info("runtime recovery: {} app(s) adopted as they ran, {} leftover process(es) killed, {} app(s) started again, "
                + "{} not healthy yet, in {} ms", adopted.get(), killed, healthy.size() - adopted.get(), failing.size(),
                (System.nanoTime() - t0) / 1_000_000);
        return new RecoveryReport(killed, List.copyOf(healthy), List.copyOf(failing), adopted.get());
    }

    /**
     * An instance to adopt, with its supervisor (not started) and its workers (not started), those whose process still
     * runs with their pid.
     */
    private record Adoptee(StoredInstance row, LogSink log, Supervisor supervisor, List<WorkerProcess> workers,
                           Map<WorkerProcess, Long> workerPids) {}

    private Adoptee adoptee(StoredInstance row, LogSink log, Map<Long, List<Long>> processGroups) {
        Supervisor s = new Supervisor(row.spec(), new OutputLog(log), row.port(), ctx);
        List<WorkerProcess> ws = Replicas.indexOf(row.deploymentId()) == 0 ? plannedWorkers(row.spec(), s.output()) : List.of();
        Map<WorkerProcess, Long> pids = new java.util.HashMap<>();
        for (WorkerProcess w : ws) {
            WorkerPids.stillRunning(w.pidFile(), row.deploymentId(), store.nodeId(), processGroups).ifPresent(pid -> pids.put(w, pid));
        }
        return new Adoptee(row, log, s, ws, pids);
    }

    /**
     * Takes over the instance's running process and its cell, and its workers' that still run (the others start);
     * false (and its processes killed) when its cell is not whole any more, and then it is started anew.
     */
    private boolean adopt(Adoptee a) {
        StoredInstance row = a.row();
        AppSpec spec = row.spec();
        var cell = LaunchCommand.cell(spec, row.port(), store.nodeId(), ctx.serverEnv(), confinement.isolated(), LaunchCommand.SANDBOX_TMP);
        Optional<dev.slipway.isolation.Confined> confined = confinement.adopt(cell, row.pid());
        boolean adopted = false;
        if (confined.isPresent()) {
            try {
                a.supervisor().adopt(confined.get(), row.pgid(), row.startedAt() == null ? ctx.clock().instant() : row.startedAt());
                adopted = true;
            } catch (java.io.IOException | RuntimeException e) {
                LOG.warn("instance {} could not be adopted: {}", spec.deploymentId(), e.toString());
                confined.get().release();
            }
        }
        if (!adopted) {
            ProcessGroups.terminate(row.pgid(), options.stopGrace());
            a.workerPids().values().forEach(pid -> ProcessGroups.terminate(pid, options.stopGrace()));
            return false;
        }
        Supervisor s = a.supervisor();
        track(s);
        s.supervise();
        for (WorkerProcess w : a.workers()) {
            Long pid = a.workerPids().get(w);
            Optional<dev.slipway.isolation.Confined> own = pid == null ? Optional.empty()
                    : confinement.adopt(w.cell(LaunchCommand.SANDBOX_TMP), pid);
            boolean kept = false;
            if (own.isPresent()) {
                try {
                    w.adopt(own.get());
                    kept = true;
                } catch (java.io.IOException | RuntimeException e) {
                    own.get().release();
                }
            }
            if (!kept) {
                if (pid != null) ProcessGroups.terminate(pid, options.stopGrace());
                w.launch();
            }
        }
        if (!a.workers().isEmpty()) workers.put(spec.deploymentId(), List.copyOf(a.workers()));
        s.output().log(Level.INFO, "Server restarted: the app kept running (pid " + row.pid() + ", port " + row.port() + ")");
        return true;
    }

    /**
     * Kills every process of this node left by a previous run: the recorded groups, and any process
     * carrying this node's marker (a process spawned just before a crash may not be recorded yet).
     * A process counts as ours only if its environment holds our markers, so a reused pid is spared.
     */
    private int killLeftovers(List<StoredInstance> rows, Set<Long> adopted) {
        String node = store.nodeId();
        Set<Long> groups = new HashSet<>();
        AtomicInteger processes = new AtomicInteger();
        for (long pid : ProcessGroups.withEnvironment(LaunchCommand.NODE_MARKER, node)) {
            var group = ProcessGroups.pgidOf(pid);
            if (group.isPresent() && adopted.contains(group.getAsLong())) continue;
            group.ifPresent(groups::add);
            processes.incrementAndGet();
        }
        for (StoredInstance row : rows) {
            if (row.pgid() == null || adopted.contains(row.pgid())) continue;
            for (long pid : ProcessGroups.members(row.pgid())) {
                if (ProcessGroups.hasEnvironment(pid, LaunchCommand.DEPLOYMENT_MARKER, row.deploymentId())
                        && ProcessGroups.hasEnvironment(pid, LaunchCommand.NODE_MARKER, node)
                        && groups.add(row.pgid())) {
                    processes.incrementAndGet();
                }
            }
        }
        try (ExecutorService kills = Executors.newVirtualThreadPerTaskExecutor()) {
            for (long group : groups) {
                kills.submit(() -> {
                    if (!ProcessGroups.terminate(group, options.stopGrace())) {
                        LOG.error("leftover process group {} survived SIGKILL", group);
                    }
                });
            }
        }
        return processes.get();
    }

    private boolean restartRecovered(StoredInstance row, LogSink log) {
        int port = FreePorts.awaitFree(row.port(), RECORDED_PORT_WAIT) ? row.port() : pickPort();
        Supervisor s = register(row.spec(), log, port);
        if (row.stopAfter() != null) store.setStopAfter(row.deploymentId(), row.stopAfter());
        log.log(Level.INFO, "Server restarted: starting the app again on port " + port);
        HealthCheck.Outcome outcome;
        try {
            outcome = launchAndAwait(s, log);
        } catch (IOException | RuntimeException e) {
            log.log(Level.ERROR, "Could not run " + row.spec().artifact().startCommand().getFirst() + ": " + e.getMessage());
            s.supervise(); // retried with backoff
            if (Replicas.indexOf(row.deploymentId()) == 0) startWorkers(row.spec(), s.output());
            return false;
        }
        s.supervise(); // from here a crash restarts it, whatever the first health check said
        if (Replicas.indexOf(row.deploymentId()) == 0) startWorkers(row.spec(), s.output());
        return outcome instanceof HealthCheck.Outcome.Healthy;
    }

    /**
     * Starts the deployment's other processes (a Procfile's {@code worker:} and other names) once its app runs; they
     * run, each in a cell of its own, until the deployment's app is stopped.
     */
    private void startWorkers(AppSpec spec, LogSink log) {
        List<WorkerProcess> started = plannedWorkers(spec, log);
        if (started.isEmpty() || closing) return;
        List<WorkerProcess> before = workers.put(spec.deploymentId(), List.copyOf(started));
        if (before != null) before.forEach(w -> w.stop(options.stopGrace()));
        // a close that began meanwhile has already stopped what it found: these would outlive it
        if (closing) {
            workers.remove(spec.deploymentId());
            return;
        }
        started.forEach(WorkerProcess::launch);
    }

    /** The deployment's other processes as its Procfile names them, not started. */
    private List<WorkerProcess> plannedWorkers(AppSpec spec, LogSink log) {
        Path workDir = spec.artifact().workDir();
        Map<String, List<String>> processes;
        try {
            processes = new java.util.LinkedHashMap<>(Procfile.workers(workDir));
            processes.putAll(spec.processes()); // slipway.toml's [processes] over the Procfile's lines
        } catch (RuntimeException e) {
            log.log(Level.ERROR, "The Procfile's other processes do not run: " + e.getMessage());
            return List.of();
        }
        List<WorkerProcess> out = new ArrayList<>();
        for (Map.Entry<String, List<String>> p : processes.entrySet()) {
            // an image's commands are paths inside it, as written
            List<String> argv = spec.artifact().isImage() ? p.getValue() : StartCommands.procfile(workDir, p.getValue());
            out.add(new WorkerProcess(spec, p.getKey(), out.size(), argv, log, ctx));
        }
        return out;
    }

    private void stopWorkers(String deploymentId) {
        List<WorkerProcess> stopped = workers.remove(deploymentId);
        if (stopped != null) stopped.forEach(w -> w.stop(options.stopGrace()));
    }

    /** A supervisor for the app on {@code port}, recorded and tracked (not started yet). */
    private Supervisor register(AppSpec spec, LogSink log, int port) {
        Supervisor s = new Supervisor(spec, new OutputLog(log), port, ctx);
        store.save(spec, port);
        track(s);
        return s;
    }

    /** Launches the app and waits for its health check; a healthy one is logged with its first answer. */
    private HealthCheck.Outcome launchAndAwait(Supervisor s, LogSink log) throws IOException {
        s.launch();
        HealthCheck.Outcome outcome = s.awaitHealthy(waited -> log.log(Level.WARNING, "The app listens on no port "
                + Supervisor.human(waited) + " after its start: it must listen on $PORT (" + s.port() + "); still waiting up to "
                + Supervisor.human(options.healthTimeout()) + " (" + RuntimeSettings.HEALTH_TIMEOUT.variable()
                + "). A process that serves no HTTP belongs on a Procfile line of its own, such as worker:"));
        s.drainOutput(); // what it printed while starting comes before what the platform says of its start
        if (outcome instanceof HealthCheck.Outcome.Healthy h) {
            log.log(Level.INFO, "App answered HTTP " + h.status() + " on port " + s.port() + " after " + Supervisor.human(h.after()));
        }
        return outcome;
    }

    /**
     * Leaves every app and worker running for the next start of the server to adopt: nothing is stopped, restarts pending
     * now are the next server's.
     */
    @Override
    public void leave() {
        timer.shutdownNow();
        for (Supervisor s : running.values()) s.leave();
        for (List<WorkerProcess> ws : workers.values()) ws.forEach(WorkerProcess::leave);
        workers.clear();
        running.clear();
        confinement.leave();
    }

    @Override
    public void close() {
        closing = true;
        timer.shutdownNow();
        try (ExecutorService stops = Executors.newVirtualThreadPerTaskExecutor()) {
            for (Supervisor s : running.values()) stops.submit(() -> s.stop(options.stopGrace()));
            for (List<WorkerProcess> ws : workers.values()) for (WorkerProcess w : ws) stops.submit(() -> w.stop(options.stopGrace()));
        }
        workers.clear();
        for (Supervisor s : running.values()) untrack(s);
        confinement.close();
        if (disks != null) {
            try {
                disks.unmountAll(); // each loop mount would stay, with its loop device, until the machine restarts
            } catch (IOException e) {
                LOG.warn("the projects' volumes stay mounted: {}", e.getMessage());
            }
        }
        try {
            Files.deleteIfExists(ctx.outputDir()); // the stopped apps' files went with them; an app still there keeps it
        } catch (IOException e) {
            LOG.debug("the output dir stays: {}", e.toString());
        }
    }

    private void track(Supervisor s) {
        running.put(s.spec().deploymentId(), s);
        byPort.set(s.port(), s);
    }

    private void untrack(Supervisor s) {
        running.remove(s.spec().deploymentId(), s);
        byPort.compareAndSet(s.port(), s, null);
    }

    private Supervisor onPort(int port) {
        return port > 0 && port < byPort.length() ? byPort.get(port) : null;
    }

}
