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
 * @param rootfs        an image's root file system, prepared by {@link ImageRoot#prepare}: the cell's {@code /} instead
 *                      of the host's {@code /usr} and a made {@code /etc}; {@code workDir} and {@code scratch} are paths
 *                      inside it, and no host path is bound into it. Null: the host's layout
 */
public record Cell(String name, String projectId, List<String> argv, Path workDir, Map<String, String> env,
                   List<Path> readOnly, List<Path> writable, List<Path> scratch, Limits limits, int inboundPort,
                   boolean ownSession, DatabaseEndpoint database, boolean buildStep, Path rootfs) {
    public Cell {
        argv = List.copyOf(argv);
        env = Map.copyOf(env);
        readOnly = List.copyOf(readOnly);
        writable = List.copyOf(writable);
        scratch = List.copyOf(scratch);
        if (argv.isEmpty()) throw new IllegalArgumentException("empty argv");
        if (!name.matches("[A-Za-z0-9_.-]{1,100}")) throw new IllegalArgumentException("bad cell name " + name);
        if (rootfs != null && (!readOnly.isEmpty() || !writable.isEmpty())) {
            throw new IllegalArgumentException("an image's cell binds no host path");
        }
    }

    /** A cell of the host's layout. */
    public Cell(String name, String projectId, List<String> argv, Path workDir, Map<String, String> env,
                List<Path> readOnly, List<Path> writable, List<Path> scratch, Limits limits, int inboundPort,
                boolean ownSession, DatabaseEndpoint database, boolean buildStep) {
        this(name, projectId, argv, workDir, env, readOnly, writable, scratch, limits, inboundPort, ownSession, database,
                buildStep, null);
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
