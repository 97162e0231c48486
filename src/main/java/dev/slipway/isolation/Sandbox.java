package dev.slipway.isolation;

import dev.slipway.core.FileTrees;

import java.nio.charset.StandardCharsets;
import java.nio.file.LinkOption;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.ToIntFunction;

/**
 * Confines each cell with tools of the operating system:
 * <ul>
 *   <li>bubblewrap gives it its own mount, pid, ipc, uts and network namespaces, a root that holds only
 *       {@code /usr} read-only, an {@code /etc} of its own ({@link CellEtc}), its binds, a private size-limited
 *       {@code /tmp}, and no capabilities; setpriv then drops it to the project's own uid and gid with no-new-privs;</li>
 *   <li>cgroups bound its memory, CPU and processes ({@link Cgroups});</li>
 *   <li>pasta connects its network namespace: the router's port on the host's loopback is forwarded in,
 *       and outbound connections leave as the host's, through a firewall in the namespace ({@link NetworkPolicy}).</li>
 * </ul>
 * The cell's network is made before it and its launcher joins its cgroup before anything else runs, so
 * nothing of the tenant's runs unconfined for a moment. Nothing of the tenant's environment reaches a process
 * that runs as root ({@link CellEnvironment}).
 */
public final class Sandbox implements Confinement {
    private static final Logger LOG = LoggerFactory.getLogger(Sandbox.class);
    /** Cells of build steps are named {@code b-<artifact id>-<n>}. */
    public static final String BUILD_PREFIX = "b-";
    /** The uid the start check's cell runs as: below the pastas' range, so no project's and no pasta's. */
    static final int CHECK_UID = Networks.FIRST_PASTA_UID - 1;

    private final SandboxTools tools;
    /** The project's uid ({@link Identities#uidOf}). */
    private final ToIntFunction<String> uidOf;
    private final NetworkPolicy policy;
    private final Networks networks;
    private final CellEtc etc;
    private final ImageBuildIds imageBuildIds;
    private final CellRecords records;
    private final WarmNetworks warm;
    private final Path runDir;
    /** Build steps' networks being removed in the background; a clean stop waits for them. */
    private final Set<Thread> removals = ConcurrentHashMap.newKeySet();
    /** Held while this server lives: a server that finds another's run dir unlocked sweeps what it left. */
    private final RunDirLock alive;
    /** This server's node id: its cgroups are {@code slipway/<scope>.<cell>}, so a sweep never touches another server's. */
    private final String scope;

    /** @param warmPerKind cell networks kept ready of each kind ({@link WarmNetworks}); 0: each is made on demand */
    public Sandbox(SandboxTools tools, Identities identities, NetworkPolicy network, Path runDir, String scope,
                   int warmPerKind) throws IOException {
        this(tools, identities::uidOf, network, runDir, scope, warmPerKind);
    }

    /** @param uidOf the project's uid: what {@link Identities} keeps, looked up only once a cell of the project starts */
    Sandbox(SandboxTools tools, ToIntFunction<String> uidOf, NetworkPolicy network, Path runDir, String scope,
            int warmPerKind) throws IOException {
        if (!scope.matches("[A-Za-z0-9_-]{1,64}")) throw new IllegalArgumentException("bad scope " + scope);
        this.scope = scope;
        this.tools = tools;
        this.uidOf = uidOf;
        this.policy = network;
        this.runDir = runDir;
        this.alive = RunDirLock.hold(runDir); // claimed before anything is put in it: a sweep takes unclaimed dirs
        try {
            // others may pass (not list): a network's pasta, as its own uid, writes its pid file here
            Files.setPosixFilePermissions(runDir, PosixFilePermissions.fromString("rwx--x--x"));
            if (runDir.startsWith(Path.of("/run", "slipway"))) passable(runDir.getParent()); // never the data dir
            this.networks = new Networks(tools, network, runDir);
            this.warm = new WarmNetworks(networks, network.buildPorts(), warmPerKind);
            this.etc = new CellEtc(runDir, network.dns());
            this.imageBuildIds = new ImageBuildIds(runDir);
            this.records = new CellRecords(runDir);
        } catch (IOException | RuntimeException e) {
            alive.release();
            throw e;
        }
    }

    @Override
    public boolean isolated() {
        return true;
    }

    @Override
    public String summary() {
        return "apps and builds are sandboxed (bubblewrap, a uid per project, pasta networking, "
                + tools.cgroups().describe() + " limits; " + networks.tunAccess() + "; the way in: " + networks.inbound() + ")";
    }

    /**
     * Starts the cell; a set-up that fails because bubblewrap itself exited early is tried once more (seen
     * once in CI, cause unknown: the message of the second failure carries bubblewrap's exit code and stderr).
     */
    @Override
    public Confined start(Cell cell, Path output) throws IOException {
        try {
            return startOnce(cell, null, output);
        } catch (SetupFailed first) {
            LOG.warn("cell {}: {}; trying once more", cell.name(), first.getMessage());
            return startOnce(cell, null, output);
        }
    }

    private static final class SetupFailed extends IOException {
        SetupFailed(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** @param hidden for an image build, the host folders it must not see (null for every other cell) */
    private Confined startOnce(Cell cell, Path hidden, Path output) throws IOException {
        long t0 = System.nanoTime();
        int uid = uidOf.applyAsInt(cell.projectId());
        List<Integer> forwards = policy.loopbackForwards(cell);
        CellNetwork ready = warm.take(cell.inboundPort(), forwards);
        CellNetwork network = ready != null ? ready : networks.make(cell.name(), cell.inboundPort(), forwards);
        return startIn(cell, uid, network, ready != null, t0, hidden, output);
    }

    /**
     * A build step that builds an image ({@code buildah}): it makes a user namespace of its own, where a {@code RUN}
     * step is root, which bubblewrap's cell cannot allow. So the server makes its namespaces itself, as DESIGN §7
     * says: the cell's network and cgroup as for every cell, a pid namespace with its own {@code /proc}, and a
     * mount namespace in which the data dir and {@code /tmp} are empty and only the step's binds are back at their
     * paths; the project's uid gets a passwd entry and a subordinate id range there ({@link ImageBuildIds}); then it
     * drops to that uid, without no-new-privs, so that the setuid {@code newuidmap} can map the range.
     */
    @Override
    public Confined startImageBuild(Cell cell, Path dataDir) throws IOException {
        if (!cell.buildStep() || cell.rootfs() != null) throw new IllegalArgumentException("an image build is a build step on the host's layout");
        return startOnce(cell, dataDir.toAbsolutePath().normalize(), null);
    }

    /** Starts the cell as {@code uid} in its network (made); the network goes with the cell, or at once when it cannot start. */
    private Confined startIn(Cell cell, int uid, CellNetwork network, boolean ready, long t0) throws IOException {
        return startIn(cell, uid, network, ready, t0, null, null);
    }

    private Confined startIn(Cell cell, int uid, CellNetwork network, boolean ready, long t0, Path hidden, Path output)
            throws IOException {
        boolean imageBuild = hidden != null;
        long tNetwork = System.nanoTime();
        Cgroups.Group group;
        try {
            group = tools.cgroups().create(scope + "." + cell.name(), cell.limits());
        } catch (IOException e) {
            networks.remove(network);
            throw new SandboxProblem.Failure(SandboxProblem.cgroups("the cell's cgroup could not be made: " + e.getMessage()), e);
        } catch (RuntimeException e) {
            networks.remove(network);
            throw e;
        }
        Runnable release = releaser(cell, group, network);
        int startQuota = startBoost(cell);
        boolean boosted = startQuota > cell.limits().cpuMillis();
        if (boosted) {
            try {
                group.cpuQuota(startQuota);
            } catch (IOException e) {
                release.run();
                throw new SandboxProblem.Failure(SandboxProblem.cgroups("the cell's CPU quota could not be set: " + e.getMessage()), e);
            }
        }
        long tGroup = System.nanoTime();
        Process p;
        try {
            List<String> etcArgs = cell.rootfs() == null ? etc.args(uid) : etc.imageArgs();
            // an image's working directory is inside its root: the launchers start at the host's /
            Path launchDir = cell.rootfs() == null ? cell.workDir() : Path.of("/");
            List<String> command = imageBuild ? imageBuildArgv(cell, uid, network, group, hidden) : argv(cell, uid, network, group, etcArgs);
            ProcessBuilder pb = new ProcessBuilder(command).directory(imageBuild ? new java.io.File("/") : launchDir.toFile());
            if (LOG.isTraceEnabled()) LOG.trace("cell {} argv {}", cell.name(), pb.command());
            pb.environment().clear();
            pb.environment().putAll(CellEnvironment.LAUNCHER);
            if (output != null) {
                pb.redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile()));
                pb.redirectError(ProcessBuilder.Redirect.appendTo(output.toFile()));
            }
            p = pb.start();
            if (outlives(cell)) records.write(cell.name(), network);
        } catch (IOException e) {
            release.run();
            throw e;
        }
        long tSpawn = System.nanoTime();
        try (OutputStream args = p.getOutputStream()) {
            if (!imageBuild) args.write(CellEnvironment.bwrapArgs(cell.env())); // bubblewrap's --args 0
        } catch (IOException | RuntimeException e) {
            boolean died = exitedWithin(p, Duration.ofMillis(100));
            String why = died ? " (bubblewrap exited with code " + exitCode(p) + stderr(p) + ")" : "";
            p.destroyForcibly();
            release.run();
            String message = "the sandbox could not be set up: " + e.getMessage() + why;
            throw died ? new SetupFailed(message, e) : new IOException(message, e);
        }
        if (LOG.isDebugEnabled()) {
            LOG.debug("cell {} confined in {} ms: network {} {} µs, cgroup {} µs, spawn {} µs, environment {} µs", cell.name(),
                    (System.nanoTime() - t0) / 1_000_000, ready ? "ready" : "new", (tNetwork - t0) / 1000,
                    (tGroup - tNetwork) / 1000, (tSpawn - tGroup) / 1000, (System.nanoTime() - tSpawn) / 1000);
        }
        long oomBefore = group.oomKills();
        Confined confined = new Confined(p, release, () -> group.oomKills() > oomBefore, cell.limits()).measuredBy(group::usage);
        if (cell.inboundPort() <= 0) return confined;
        return confined.settledBy(() -> {
            if (boosted) settle(cell, group);
            warm.started();
        });
    }

    /**
     * The CPU quota an app's cell starts with: twice its type's, up to this machine's cores, until {@link Confined#settle}
     * (its app answered, or its start failed). Node loading express took 440 ms at half a core against 215 ms at one;
     * the weight it has under contention stays its type's, so the boost is taken from idle cores only. Build steps,
     * workers and cron runs (no inbound port) start at their type's quota.
     */
    static int startBoost(Cell cell) {
        int quota = cell.limits().cpuMillis();
        if (cell.inboundPort() <= 0 || quota <= 0) return quota;
        return Math.max(quota, Math.min(2 * quota, Cgroups.CORES * 1000));
    }

    private static void settle(Cell cell, Cgroups.Group group) {
        try {
            group.cpuQuota(cell.limits().cpuMillis());
        } catch (IOException e) {
            // the group went with its cell
            LOG.debug("cell {}: quota not settled: {}", cell.name(), e.toString());
        }
    }

    /** The descriptor bubblewrap writes its JSON status to (its child's pid, then its exit code). */
    private static final int STATUS_FD = 3;

    /** Whether a cell may outlive this server: an app's or a worker's, never a build step's. */
    private static boolean outlives(Cell cell) {
        return !cell.buildStep();
    }

    /**
     * What removes the cell once it has ended: its cgroup (with whatever still runs in it), its network, its record.
     * A second caller waits for the first one's clean-up: a restart must not start before the port is free.
     */
    private Runnable releaser(Cell cell, Cgroups.Group group, CellNetwork network) {
        AtomicBoolean released = new AtomicBoolean();
        return () -> {
            synchronized (released) {
                if (released.compareAndSet(false, true)) {
                    group.destroy();
                    // nobody waits for a network without a port: the build's next step need not wait for it to go
                    if (network.port() == 0) {
                        Thread removal = Thread.ofVirtual().name("network-release").unstarted(() -> {
                            networks.remove(network);
                            removals.remove(Thread.currentThread());
                        });
                        removals.add(removal);
                        removal.start();
                    } else {
                        networks.remove(network);
                    }
                    if (outlives(cell)) records.delete(cell.name());
                }
            }
        };
    }

    /**
     * A cell an earlier run of this server started and left running: it is adopted when its record, its cgroup (with
     * {@code pid} in it) and its network's pasta are all there. Otherwise what is left of it is removed, and the caller
     * starts it anew.
     */
    @Override
    public Optional<Confined> adopt(Cell cell, long pid) {
        Optional<CellNetwork> network = records.read(cell.name());
        Optional<Cgroups.Group> group = tools.cgroups().open(scope + "." + cell.name());
        Optional<ProcessHandle> process = ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
        boolean whole = network.isPresent() && group.isPresent() && process.isPresent()
                && Networks.connected(network.get()) && group.get().pids().contains(pid);
        if (!whole) {
            group.ifPresent(Cgroups.Group::destroy);
            network.ifPresent(networks::remove);
            records.delete(cell.name());
            return Optional.empty();
        }
        Cgroups.Group g = group.get();
        settle(cell, g); // an earlier server may have stopped while the cell started, its quota still raised
        long oomBefore = g.oomKills();
        return Optional.of(Confined.adopted(process.get(), releaser(cell, g, network.get()), () -> g.oomKills() > oomBefore,
                cell.limits(), () -> records.exitCode(cell.name())).measuredBy(g::usage));
    }

    /**
     * The start check: one real cell end to end before the server says that apps are sandboxed. Its network is made
     * as every cell's (a user namespace of its pasta's uid, the firewall, pasta through the tun device), it gets
     * cgroups with limits, and bubblewrap and setpriv run {@code true} in it as an unprivileged uid that is neither a
     * project's nor a pasta's. Where an unprivileged pasta cannot have the tun device, pastas run as root from here on
     * ({@link Networks#makeChecked}).
     *
     * @return how long it took
     * @throws SandboxProblem.Failure naming the part that failed and the command that fixes it
     */
    Duration check() throws SandboxProblem.Failure {
        long t0 = System.nanoTime();
        Cell cell = new Cell("check", "-", List.of(tools.truth().toString()), Path.of("/"), Map.of(), List.of(),
                List.of(), List.of(), new Limits(64 * Limits.MB, 250, 16, Limits.MB), 0, false);
        Confined confined;
        try {
            CellNetwork network = networks.makeChecked(cell.name());
            confined = startIn(cell, CHECK_UID, network, false, t0);
        } catch (SandboxProblem.Failure e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            throw new SandboxProblem.Failure(SandboxProblem.cell(e.getMessage()), e);
        }
        try {
            Process p = confined.process();
            if (!exitedWithin(p, Duration.ofSeconds(10))) {
                throw new SandboxProblem.Failure(SandboxProblem.cell("a cell running `true` did not end within 10 s"), null);
            }
            if (p.exitValue() != 0) {
                throw new SandboxProblem.Failure(SandboxProblem.cell("a cell running `true` exited with code " + p.exitValue()
                        + stderr(p)), null);
            }
        } finally {
            confined.release();
        }
        return Duration.ofNanos(System.nanoTime() - t0);
    }

    /**
     * A root shell with nothing but PATH joins the cell's cgroups, so that everything after it (and all it
     * forks) is counted and limited from its first instruction; then setsid, nsenter into the cell's network
     * (made before), bubblewrap (its environment comes on stdin), and setpriv to the project's uid.
     */
    private List<String> argv(Cell cell, int uid, CellNetwork network, Cgroups.Group group, List<String> etcArgs)
            throws IOException {
        // a cell that outlives the server has bubblewrap write its program's exit status to a file of the run dir: the
        // next server, which adopts it but is not its parent, reads it there
        Path status = outlives(cell) ? records.statusFile(cell.name()) : null;
        List<String> a = new ArrayList<>(joinCgroups(group, status));
        if (cell.ownSession()) a.add(tools.setsid().toString());
        a.addAll(List.of(tools.nsenter().toString(), "--net=" + network.handle(), "--"));
        a.addAll(List.of(tools.bwrap().toString(), "--args", "0"));
        if (status != null) a.addAll(List.of("--json-status-fd", Integer.toString(STATUS_FD)));
        a.addAll(List.of("--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--hostname", "slipway"));
        if (cell.rootfs() != null) return imageArgv(a, cell, uid, etcArgs);
        a.addAll(List.of("--ro-bind", "/usr", "/usr"));
        for (String top : List.of("/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32")) {
            Path path = Path.of(top);
            if (Files.isSymbolicLink(path)) {
                try {
                    a.addAll(List.of("--symlink", Files.readSymbolicLink(path).toString(), top));
                } catch (IOException e) {
                    // unreadable link: leave it out
                }
            } else if (Files.isDirectory(path)) {
                a.addAll(List.of("--ro-bind", top, top));
            }
        }
        a.addAll(etcArgs);
        a.addAll(List.of("--proc", "/proc", "--dev", "/dev",
                "--perms", "1777", "--size", Long.toString(cell.limits().scratchBytes()), "--tmpfs", "/tmp"));
        // bubblewrap would make the binds' parent directories 0700 root: the cell could not reach its own binds
        Set<Path> parents = new TreeSet<>();
        for (Path p : concat(cell.readOnly(), cell.writable())) {
            for (Path d = p.getParent(); d != null && d.getParent() != null; d = d.getParent()) parents.add(d);
        }
        for (Path d : parents) {
            if (d.startsWith("/usr") || d.startsWith("/etc") || d.equals(Path.of("/tmp"))) continue;
            a.addAll(List.of("--perms", "0755", "--dir", d.toString()));
        }
        for (Path p : cell.readOnly()) a.addAll(List.of("--ro-bind", p.toString(), p.toString()));
        for (Path p : cell.writable()) a.addAll(List.of("--bind", p.toString(), p.toString()));
        a.addAll(mountArgs(cell));
        for (Path p : cell.scratch()) {
            a.addAll(List.of("--perms", "1777", "--size", Long.toString(cell.limits().scratchBytes()), "--tmpfs", p.toString()));
        }
        a.addAll(List.of("--chdir", cell.workDir().toString(),
                "--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP",
                "--", tools.setpriv().toString(), "--reuid=" + uid, "--regid=" + uid, "--clear-groups",
                "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"));
        a.addAll(CellEnvironment.restorer(tools.sh(), cell.env()));
        a.addAll(cell.argv());
        return a;
    }

    /** The project's volumes at their paths, writable, their parent directories made reachable (0755). */
    private static List<String> mountArgs(Cell cell) {
        List<String> a = new ArrayList<>();
        Set<Path> parents = new TreeSet<>();
        for (Cell.Mount m : cell.mounts()) {
            for (Path d = m.target().getParent(); d != null && d.getParent() != null; d = d.getParent()) parents.add(d);
        }
        for (Path d : parents) a.addAll(List.of("--perms", "0755", "--dir", d.toString()));
        for (Cell.Mount m : cell.mounts()) a.addAll(List.of("--bind", m.host().toString(), m.target().toString()));
        return a;
    }

    /** A root shell with nothing but PATH that joins the cell's cgroups, then execs the rest of the argv. */
    private List<String> joinCgroups(Cgroups.Group group) {
        return joinCgroups(group, null);
    }

    /** @param status opened as {@link #STATUS_FD} for bubblewrap's exit status; null: none */
    private List<String> joinCgroups(Cgroups.Group group, Path status) {
        StringBuilder join = new StringBuilder();
        if (status != null) {
            if (status.toString().indexOf('\'') >= 0) throw new IllegalArgumentException("bad status path " + status);
            join.append("exec ").append(STATUS_FD).append(">'").append(status).append("' && ");
        }
        for (Path procs : group.procsFiles()) {
            if (procs.toString().indexOf('\'') >= 0) throw new IllegalArgumentException("bad cgroup path " + procs);
            join.append("echo $$ > '").append(procs).append("' && ");
        }
        return List.of(tools.sh().toString(), "-c", join + "exec \"$@\"", "sh");
    }

    /**
     * The launcher of an image build ({@link #startImageBuild}): a root shell joins the cgroups, then setsid, nsenter
     * into the network, unshare of the mount and pid namespaces (its own {@code /proc}), and in there, as root,
     * {@link ImageBuildIds#MOUNTS}: the binds kept aside, {@code hidden} and {@code /tmp} made empty, the binds back at
     * their paths, the uid's passwd and subordinate ids in place; then setpriv to the project's uid, and the step with
     * its environment on {@code env}'s command line (nothing secret: a Dockerfile's build arguments come from a file).
     */
    private List<String> imageBuildArgv(Cell cell, int uid, CellNetwork network, Cgroups.Group group, Path hidden)
            throws IOException {
        List<String> a = new ArrayList<>(joinCgroups(group));
        a.addAll(List.of(tools.setsid().toString(),
                tools.nsenter().toString(), "--net=" + network.handle(), "--",
                tools.unshare().toString(), "--mount", "--propagation", "private", "--pid", "--fork", "--mount-proc", "--uts", "--ipc",
                "--", tools.sh().toString(), "-c", ImageBuildIds.MOUNTS, "sh", hidden.toString(),
                imageBuildIds.forUid(uid).toString(), Integer.toString(uid), tools.setpriv().toString(), etc.resolvConf().toString()));
        for (Path p : cell.writable()) a.add("rw:" + p);
        for (Path p : cell.readOnly()) a.add("ro:" + p);
        a.addAll(List.of("--", "/usr/bin/env", "-i", "--chdir=" + cell.workDir()));
        cell.env().forEach((k, v) -> a.add(k + "=" + v));
        a.addAll(cell.argv());
        return a;
    }

    /**
     * The rest of an image's cell: its root file system read-only as {@code /}, the host's {@code /usr} where the
     * launchers run from ({@link ImageRoot}), its resolv.conf, {@code /proc}, {@code /dev}, a private {@code /tmp};
     * then setpriv to the project's uid as in every cell.
     */
    private List<String> imageArgv(List<String> a, Cell cell, int uid, List<String> etcArgs) throws IOException {
        a.addAll(List.of("--ro-bind", cell.rootfs().toString(), "/", "--ro-bind", "/usr", ImageRoot.HOST_USR.toString()));
        a.addAll(etcArgs);
        a.addAll(List.of("--proc", "/proc", "--dev", "/dev",
                "--perms", "1777", "--size", Long.toString(cell.limits().scratchBytes()), "--tmpfs", "/tmp"));
        for (Path p : cell.scratch()) {
            a.addAll(List.of("--perms", "1777", "--size", Long.toString(cell.limits().scratchBytes()), "--tmpfs", p.toString()));
        }
        for (Cell.Mount m : cell.mounts()) {
            // the image's root is read-only: a volume's directory must be in it already
            Path inImage = cell.rootfs().resolve(cell.rootfs().getRoot().relativize(m.target()).toString());
            if (!Files.isDirectory(inImage, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                throw new IOException("the volume's path " + m.target() + " is not a directory of the image: make it in the"
                        + " Dockerfile (RUN mkdir -p " + m.target() + ")");
            }
            a.addAll(List.of("--bind", m.host().toString(), m.target().toString()));
        }
        a.addAll(List.of("--chdir", cell.workDir().toString(),
                "--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP", "--"));
        a.addAll(ImageRoot.hostProgram(tools.setpriv()));
        a.addAll(List.of("--reuid=" + uid, "--regid=" + uid, "--clear-groups", "--inh-caps=-all", "--bounding-set=-all",
                "--no-new-privs", "--"));
        List<String> restorer = CellEnvironment.restorer(tools.sh(), cell.env());
        if (!restorer.isEmpty()) {
            a.addAll(ImageRoot.hostProgram(tools.sh()));
            a.addAll(restorer.subList(1, restorer.size()));
        }
        a.addAll(cell.argv());
        return a;
    }

    private static List<Path> concat(List<Path> a, List<Path> b) {
        List<Path> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    private static boolean exitedWithin(Process p, Duration d) {
        try {
            return p.waitFor(d.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !p.isAlive();
        }
    }

    private static String exitCode(Process p) {
        try {
            return Integer.toString(p.exitValue());
        } catch (IllegalThreadStateException running) {
            return "?";
        }
    }

    private static String stderr(Process p) {
        try {
            byte[] err = p.getErrorStream().readNBytes(2000);
            String s = new String(err, StandardCharsets.UTF_8).strip();
            return s.isEmpty() ? "" : ": " + s;
        } catch (IOException e) {
            return "";
        }
    }

    @Override
    public void handOver(Path dir, String projectId) throws IOException {
        int uid = uidOf.applyAsInt(projectId);
        if (((Number) Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS)).intValue() == uid) {
            return; // its own already (a cache made by an earlier build): what is below it was written by it
        }
        try (var tree = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) tree::iterator) {
                Files.setAttribute(p, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
                Files.setAttribute(p, "unix:gid", uid, LinkOption.NOFOLLOW_LINKS);
            }
        }
    }

    /**
     * A port for an app cell: that of a network made ready ahead, so the cell starts without waiting for one.
     */
    @Override
    public OptionalInt reservePort() {
        return warm.reservePort();
    }

    /** How many networks are ready now, open and closed. */
    int[] readyNetworks() {
        return warm.ready();
    }

    /** Whether the next ready network waits for a starting app now ({@link WarmNetworks#QUIET_WHILE_STARTING}). */
    boolean quietForStart() {
        return warm.quiet();
    }

    /** The run dir goes when no cell is left in it (a build still stopping keeps it; the next start sweeps it). */
    @Override
    public void close() {
        removeReadyNetworks();
        etc.remove();
        networks.close();
        alive.release();
        try {
            Files.deleteIfExists(runDir);
        } catch (IOException notEmpty) {
            LOG.debug("{} kept: {}", runDir, notEmpty.toString());
        }
    }

    /**
     * Leaves the running cells as they are (their networks, cgroups, records, the {@code /etc} they bind, the run dir)
     * for the next start to adopt; removes the networks made ahead, and lets the run dir go.
     */
    @Override
    public void leave() {
        removeReadyNetworks();
        alive.release();
    }

    /** The networks made ahead go, and the build steps' networks being removed are waited for. */
    private void removeReadyNetworks() {
        warm.close();
        for (Thread removal : List.copyOf(removals)) {
            try {
                removal.join(Duration.ofSeconds(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
    }

    /** Kills what cells of an earlier run left: their pastas, cgroups and network handles. */
    @Override
    public void sweep(Set<String> adopted) {
        Set<CellNetwork> kept = new HashSet<>();
        for (String name : records.names()) {
            Optional<CellNetwork> network = adopted.contains(name) ? records.read(name) : Optional.empty();
            if (network.isPresent()) kept.add(network.get());
            else records.delete(name);
        }
        networks.sweep(kept);
        sweepDeadServers();
        for (String name : tools.cgroups().existing()) {
            if (!name.startsWith(scope + ".") || adopted.contains(name.substring(scope.length() + 1))) continue;
            // a build's processes are stopped, and counted in its log, by the resumed deployment; their group
            // goes at the next sweep once it is empty
            if (name.startsWith(scope + "." + BUILD_PREFIX) && !tools.cgroups().members(name).isEmpty()) continue;
            try {
                tools.cgroups().remove(name);
            } catch (RuntimeException e) {
                LOG.warn("could not remove the leftover cgroup {}: {}", name, e.toString());
            }
        }
        warm.begin();
    }

    /**
     * The run dirs of this machine's other servers that died without a clean stop (killed, or the machine's
     * JVM crashed): their ready networks' pastas would run on forever, and their cgroups stay. Each live
     * server holds the lock of its own run dir.
     */
    /** Adds others' right to pass to a dir that lacks it (made 0700 by an earlier version), nothing else. */
    private static void passable(Path dir) throws IOException {
        if (dir == null) return;
        var mode = Files.getPosixFilePermissions(dir);
        if (mode.contains(PosixFilePermission.OTHERS_EXECUTE) && mode.contains(PosixFilePermission.GROUP_EXECUTE)) return;
        var more = EnumSet.copyOf(mode);
        more.add(PosixFilePermission.GROUP_EXECUTE);
        more.add(PosixFilePermission.OTHERS_EXECUTE);
        Files.setPosixFilePermissions(dir, more);
    }

    private void sweepDeadServers() {
        Path parent = runDir.getParent();
        if (parent == null) return;
        List<Path> others;
        try (var dirs = Files.list(parent)) {
            others = dirs.filter(d -> Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS) && !d.equals(runDir)).toList();
        } catch (IOException e) {
            return;
        }
        for (Path dir : others) {
            String node = dir.getFileName().toString();
            if (!node.matches("[A-Za-z0-9_-]{1,64}")) continue;
            // a server that stopped and left its apps running comes back to adopt them: its cells are its own (a cell
            // whose processes are all gone is not one: its network alone would run on forever)
            CellRecords left = new CellRecords(dir);
            if (left.names().stream().anyMatch(name -> left.read(name).filter(Networks::connected).isPresent()
                    && !tools.cgroups().members(node + "." + name).isEmpty())) {
                continue;
            }
            RunDirLock.ifDead(dir, () -> {
                networks.sweep(dir);
                left.names().forEach(left::delete);
                FileTrees.delete(parent.resolve(node + Isolations.OUTPUT_SUFFIX)); // what its apps printed, secrets too
                for (String name : tools.cgroups().existing()) {
                    if (!name.startsWith(node + ".")) continue;
                    try {
                        tools.cgroups().remove(name);
                    } catch (RuntimeException e) {
                        LOG.warn("could not remove the cgroup {} of a stopped server: {}", name, e.toString());
                    }
                }
                LOG.info("swept what the stopped server {} left", node);
            });
        }
    }
}
