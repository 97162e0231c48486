package dev.slipway.build.steps;

import dev.slipway.build.BuildException;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Runs the commands of one build with its environment, secrets, timeout and confinement. */
public record Steps(CommandRunner runner, Map<String, String> env, Set<String> secrets, Duration timeout,
             CommandRunner.Confine confine) {
    public CommandRunner.Result run(List<String> argv, Path dir, LogSink log) {
        return runner.run(command(argv, dir), log);
    }

    /**
     * Runs a package manager's install, and runs it once more when it failed on the network (a registry's
     * connection cut or timed out): what it downloaded before stays in the project's cache.
     */
    public CommandRunner.Result runFetching(List<String> argv, Path dir, LogSink log) {
        try {
            return run(argv, dir, log);
        } catch (BuildException e) {
            if (e.exitCode() == null) throw e;
            String code = NetworkFailure.in(e.lastLines()).orElseThrow(() -> e);
            log.log(Level.WARNING, "The install failed on the network (" + code + "); running it once more");
            return run(argv, dir, log);
        }
    }

    /** Runs a command whose failure the caller handles, so its errors are logged as warnings. */
    public CommandRunner.Result attempt(List<String> argv, Path dir, LogSink log) {
        return runner.run(command(argv, dir).asAttempt(), log);
    }

    public Steps withEnv(String name, String value) {
        Map<String, String> more = new HashMap<>(env);
        more.put(name, value);
        return new Steps(runner, more, secrets, timeout, confine);
    }

    /** These steps with {@code dir} visible read-only in their cells too (a workspace root above the app). */
    public Steps seeing(Path dir) {
        List<Path> more = new java.util.ArrayList<>(confine.readOnly());
        more.add(dir);
        return new Steps(runner, env, secrets, timeout, confine.withReadOnly(more));
    }

    private CommandRunner.Command command(List<String> argv, Path dir) {
        return new CommandRunner.Command(argv, dir, env, timeout, secrets).confinedTo(confine);
    }
}
