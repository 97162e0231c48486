package dev.slipway.isolation;

import dev.slipway.net.DatabaseEndpoint;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * One process tree to confine: an app instance or a build step.
 *
 * @param name          unique among running cells: names its cgroup and network namespace handle
 * @param projectId     whose identity it runs under (one unprivileged uid per project)
 * @param argv          the program and its arguments
 * @param workDir       its working directory (inside one of the binds)
 * @param env           its complete environment
 * @param readOnly      host paths it sees read-only, at the same path
 * @param writable      host paths it sees writable, at the same path (its workspace, its caches)
 * @param scratch       paths that get a private empty writable directory (inside a read-only bind)
 * @param inboundPort   the loopback port the router reaches it on (the same port inside); 0: none
 * @param ownSession    start it as the leader of its own session and process group
 * @param database      the project's database as the platform recorded it, or null: the only database the cell's
 *                      network may lead to ({@link NetworkPolicy#loopbackForwards}); its env is the account's own
 * @param buildStep     a build's command: it reaches what every build step reaches (a configured registry)
 */
public record Cell(String name, String projectId, List<String> argv, Path workDir, Map<String, String> env,
                   List<Path> readOnly, List<Path> writable, List<Path> scratch, Limits limits, int inboundPort,
                   boolean ownSession, DatabaseEndpoint database, boolean buildStep) {
    public Cell {
        argv = List.copyOf(argv);
        env = Map.copyOf(env);
        readOnly = List.copyOf(readOnly);
        writable = List.copyOf(writable);
        scratch = List.copyOf(scratch);
        if (argv.isEmpty()) throw new IllegalArgumentException("empty argv");
        if (!name.matches("[A-Za-z0-9_.-]{1,100}")) throw new IllegalArgumentException("bad cell name " + name);
    }

    /** A cell that is not a build step. */
    public Cell(String name, String projectId, List<String> argv, Path workDir, Map<String, String> env,
                List<Path> readOnly, List<Path> writable, List<Path> scratch, Limits limits, int inboundPort,
                boolean ownSession, DatabaseEndpoint database) {
        this(name, projectId, argv, workDir, env, readOnly, writable, scratch, limits, inboundPort, ownSession, database, false);
    }

    /** A cell without a database. */
    public Cell(String name, String projectId, List<String> argv, Path workDir, Map<String, String> env,
                List<Path> readOnly, List<Path> writable, List<Path> scratch, Limits limits, int inboundPort,
                boolean ownSession) {
        this(name, projectId, argv, workDir, env, readOnly, writable, scratch, limits, inboundPort, ownSession, null);
    }
}
