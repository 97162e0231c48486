package dev.slipway.runtime.local;

import dev.slipway.core.FileTrees;
import dev.slipway.isolation.Confined;
import dev.slipway.isolation.Confinement;
import dev.slipway.logs.LogSink;
import dev.slipway.logs.Masker;
import dev.slipway.runtime.AppSpec;
import dev.slipway.runtime.OutputPump;
import dev.slipway.runtime.ReleaseCommands;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** A release command or a cron run as a process of this server, in a cell like its app's (the sandbox's when there is one). */
final class LocalReleases implements ReleaseCommands {
    private static final int LAST_LINES = 20;
    /** The pipes may be held by a child it left behind: its output is read this long after it ended. */
    private static final Duration DRAIN = Duration.ofSeconds(2);

    private final Confinement confinement;
    private final String nodeId;
    private final Map<String, String> serverEnv;
    private final Duration stopGrace;

    private final Supervisor.Volumes volumes;

    LocalReleases(Confinement confinement, String nodeId, Map<String, String> serverEnv, Duration stopGrace,
                  Supervisor.Volumes volumes) {
        this.volumes = volumes;
        this.confinement = confinement;
        this.nodeId = nodeId;
        this.serverEnv = serverEnv;
        this.stopGrace = stopGrace;
    }

    @Override
    public Result run(AppSpec spec, String runId, List<String> argv, LogSink log, Duration timeout) throws IOException, InterruptedException {
        boolean sandboxed = confinement.isolated();
        String name = runId == null ? "release-" + spec.deploymentId() : runId;
        Path scratch = sandboxed ? null : Files.createTempDirectory("slipway-" + name + "-");
        try {
            Path tmp = sandboxed ? LaunchCommand.SANDBOX_TMP : scratch;
            Confined cell = confinement.start((runId == null ? LaunchCommand.release(spec, argv, nodeId, serverEnv, sandboxed, tmp)
                    : LaunchCommand.oneOff(spec, runId, argv, nodeId, serverEnv, sandboxed, tmp))
                    .withMounts(volumes.mount(spec.projectId(), spec.volumes())));
            try {
                return await(cell.process(), name, spec, log, timeout);
            } finally {
                cell.release();
            }
        } finally {
            if (scratch != null) FileTrees.delete(scratch);
        }
    }

    private Result await(Process p, String name, AppSpec spec, LogSink log, Duration timeout) throws InterruptedException, IOException {
        // its own session and group (setsid): what it starts is stopped with it
        if (!ProcessGroups.awaitLeader(p)) {
            p.destroyForcibly();
            throw new IOException("the command did not start its own session");
        }
        p.getOutputStream().close(); // nothing to read: a command that prompts gets EOF
        OutputTail tail = new OutputTail(LAST_LINES);
        Masker mask = new Masker(spec.secretValues());
        Thread out = OutputPump.start(name + "-out", p.getInputStream(), log, mask, tail::add);
        Thread err = OutputPump.start(name + "-err", p.getErrorStream(), log, mask, tail::add);
        boolean ended;
        try {
            ended = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            ProcessGroups.terminate(p.pid(), Duration.ZERO);
            throw e;
        }
        if (!ended) ProcessGroups.terminate(p.pid(), stopGrace);
        else ProcessGroups.terminate(p.pid(), Duration.ZERO); // what it left running in its group
        out.join(DRAIN);
        err.join(DRAIN);
        return new Result(ended ? p.exitValue() : -1, !ended, tail.lines());
    }
}
