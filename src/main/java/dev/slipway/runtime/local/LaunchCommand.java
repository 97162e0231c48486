package dev.slipway.runtime.local;

import dev.slipway.build.ImageRun;
import dev.slipway.isolation.Cell;
import dev.slipway.isolation.Limits;
import dev.slipway.runtime.AppSpec;
import dev.slipway.runtime.InstanceType;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The cell of an app: its argv in its own session and process group (so the whole group can be
 * signalled), its artifact as working directory (read-only) with the tool homes it was built with (its
 * Node, its package manager) read-only and first on PATH, a clean environment, and its instance type's limits.
 */
final class LaunchCommand {
    static final String PORT_TOKEN = "${PORT}";
    /** Marks processes as ours, so recovery never kills a stranger that reused a recorded pid. */
    static final String DEPLOYMENT_MARKER = "SLIPWAY_DEPLOYMENT_ID";
    static final String NODE_MARKER = "SLIPWAY_NODE_ID";
    /** Names a release command's cell, which runs while no app of its deployment does yet. */
    static final String RELEASE_PREFIX = "r-";
    /** Names a cron run's cell: {@code o-<run id>}. */
    static final String ONE_OFF_PREFIX = "o-";
    /** Names a worker's cell: {@code p<its place in the Procfile>-<deployment>}. */
    static final String WORKER_PREFIX = "p";
    private static final List<String> INHERITED = List.of("PATH", "HOME", "LANG");
    /** Inside a sandbox the server's PATH and HOME mean nothing: only /usr and /etc are there. */
    private static final Map<String, String> SANDBOXED = Map.of("PATH", "/usr/local/bin:/usr/bin:/bin", "HOME", "/tmp");
    /** Directories an artifact keeps writable (Next's caches): a sandboxed app gets an empty private one. */
    private static final List<String> SCRATCH = List.of(".next/cache");

    private LaunchCommand() {}

    /** The app's writable scratch directory in a sandbox: its private {@code /tmp}. */
    static final Path SANDBOX_TMP = Path.of("/tmp");

    /**
     * @param tmpDir the instance's writable scratch directory, its {@code TMPDIR}: outside the artifact, which
     *               is read-only ({@link #SANDBOX_TMP} in a sandbox)
     */
    static Cell cell(AppSpec spec, int port, String nodeId, Map<String, String> serverEnv, boolean sandboxed, Path tmpDir) {
        List<String> argv = new ArrayList<>();
        for (String arg : spec.artifact().startCommand()) argv.add(arg.replace(PORT_TOKEN, Integer.toString(port)));
        return cell(spec, spec.deploymentId(), argv, port, nodeId, serverEnv, sandboxed, tmpDir);
    }

    /** The cell of the deployment's release command: the app's, with that command and without a port. */
    static Cell release(AppSpec spec, List<String> argv, String nodeId, Map<String, String> serverEnv, boolean sandboxed,
                        Path tmpDir) {
        return cell(spec, RELEASE_PREFIX + spec.deploymentId(), argv, 0, nodeId, serverEnv, sandboxed, tmpDir);
    }

    /** The cell of a run of one of the deployment's cron jobs: the app's, with that command, named after the run. */
    static Cell oneOff(AppSpec spec, String runId, List<String> argv, String nodeId, Map<String, String> serverEnv,
                       boolean sandboxed, Path tmpDir) {
        return cell(spec, ONE_OFF_PREFIX + runId, argv, 0, nodeId, serverEnv, sandboxed, tmpDir);
    }

    /** The cell of one of the deployment's other processes (a Procfile's worker:): the app's, with that command, without a port. */
    static Cell worker(AppSpec spec, int index, List<String> argv, String nodeId, Map<String, String> serverEnv, boolean sandboxed,
                       Path tmpDir) {
        return cell(spec, WORKER_PREFIX + index + "-" + spec.deploymentId(), argv, 0, nodeId, serverEnv, sandboxed, tmpDir);
    }

    private static Cell cell(AppSpec spec, String name, List<String> argv, int port, String nodeId, Map<String, String> serverEnv,
                             boolean sandboxed, Path tmpDir) {
        if (spec.artifact().isImage()) return imageCell(spec, name, argv, port, nodeId, tmpDir);
        Map<String, String> env = new LinkedHashMap<>();
        for (String var : INHERITED) {
            String v = sandboxed ? SANDBOXED.get(var) : serverEnv.get(var);
            if (v != null) env.put(var, v);
        }
        env.putIfAbsent("PATH", "/usr/local/bin:/usr/bin:/bin");
        env.putIfAbsent("LANG", "C.UTF-8");
        env.putAll(spec.env());
        if (sandboxed) env.putAll(SANDBOXED); // an app's own PATH or HOME would point outside its sandbox
        if (!spec.artifact().tools().isEmpty()) env.put("PATH", toolPath(spec.artifact().tools(), env.get("PATH")));
        if (port > 0) env.put("PORT", Integer.toString(port));
        else env.remove("PORT");
        env.put("TMPDIR", tmpDir.toString());
        env.put(DEPLOYMENT_MARKER, spec.deploymentId());
        env.put(NODE_MARKER, nodeId);

        Path root = spec.artifact().root();
        List<Path> scratch = SCRATCH.stream().map(spec.artifact().workDir()::resolve).filter(Files::isDirectory).toList();
        InstanceType type = spec.instanceType();
        Limits limits = new Limits(type.memoryBytes(), type.cpuMillis(), type.processes(), type.scratchMb() * Limits.MB);
        List<Path> readOnly = new ArrayList<>(List.of(root));
        readOnly.addAll(spec.artifact().tools());
        return new Cell(name, spec.projectId(), argv, spec.artifact().workDir(), env, readOnly, List.of(), scratch,
                limits, port, true, spec.database());
    }

    /**
     * The cell of an image: its root file system as {@code /}, read-only, and nothing of the host's; the image's
     * variables, then the app's own, over them PORT and the platform's markers; the image's working directory.
     */
    private static Cell imageCell(AppSpec spec, String name, List<String> argv, int port, String nodeId, Path tmpDir) {
        ImageRun image = spec.artifact().image();
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
        env.put("HOME", SANDBOX_TMP.toString());
        env.putAll(image.env());
        env.putAll(spec.env());
        if (port > 0) env.put("PORT", Integer.toString(port));
        else env.remove("PORT");
        env.put("TMPDIR", tmpDir.toString());
        env.put(DEPLOYMENT_MARKER, spec.deploymentId());
        env.put(NODE_MARKER, nodeId);
        InstanceType type = spec.instanceType();
        Limits limits = new Limits(type.memoryBytes(), type.cpuMillis(), type.processes(), type.scratchMb() * Limits.MB);
        return new Cell(name, spec.projectId(), argv, Path.of(image.workDir()), env, List.of(), List.of(), List.of(),
                limits, port, true, spec.database(), false, ImageRun.rootfs(spec.artifact().root()));
    }

    /** The artifact's Node and package manager first, so {@code node} and {@code npm start}'s scripts find them. */
    private static String toolPath(List<Path> tools, String path) {
        StringBuilder out = new StringBuilder();
        for (Path home : tools) out.append(home.resolve("bin")).append(':');
        return out.append(path).toString();
    }
}
