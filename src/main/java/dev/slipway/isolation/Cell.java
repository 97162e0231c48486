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
 * @param mounts        the project's volumes: a host directory writable at another path inside (only under the
 *                      sandbox, which alone can put it there)
 */
public record Cell(String name, String projectId, List<String> argv, Path workDir, Map<String, String> env,
                   List<Path> readOnly, List<Path> writable, List<Path> scratch, Limits limits, int inboundPort,
                   boolean ownSession, DatabaseEndpoint database, boolean buildStep, Path rootfs, List<Mount> mounts) {
    /** A host directory seen writable at {@code target} inside the cell, never over the system's own directories. */
    public record Mount(Path host, Path target) {
        /** What a volume may not hide or sit in: the cell's system, its kernel views, its scratch. */
        public static final List<String> RESERVED = List.of("/proc", "/sys", "/dev", "/etc", "/usr", "/bin", "/sbin",
                "/lib", "/lib32", "/lib64", "/libx32", "/tmp", "/run", "/boot");

        public Mount {
            host = host.toAbsolutePath().normalize();
            String problem = problem(target.toString());
            if (problem != null) throw new IllegalArgumentException("a volume's path " + problem + ": " + target);
        }

        /** Why {@code path} cannot be a volume's path, or null when it can. */
        public static String problem(String path) {
            if (!path.startsWith("/")) return "must be absolute";
            if (path.chars().allMatch(c -> c == '/')) return "cannot be /";
            Path p = Path.of(path);
            if (!p.normalize().toString().equals(path) || path.contains("/..") || path.endsWith("/")) {
                return "must be a plain absolute path (no '..', no trailing '/')";
            }
            if (p.getParent() == null) return "cannot be /";
            for (String r : RESERVED) {
                if (path.equals(r) || path.startsWith(r + "/")) return "cannot be in " + r;
            }
            return null;
        }
    }

    public Cell {
        mounts = mounts == null ? List.of() : List.copyOf(mounts);
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

    public Cell(String name, String projectId, List<String> argv, Path workDir, Map<String, String> env,
                List<Path> readOnly, List<Path> writable, List<Path> scratch, Limits limits, int inboundPort,
                boolean ownSession, DatabaseEndpoint database, boolean buildStep, Path rootfs) {
        this(name, projectId, argv, workDir, env, readOnly, writable, scratch, limits, inboundPort, ownSession, database,
                buildStep, rootfs, List.of());
    }

    /** The same cell with the project's volumes mounted. */
    public Cell withMounts(List<Mount> m) {
        return new Cell(name, projectId, argv, workDir, env, readOnly, writable, scratch, limits, inboundPort, ownSession,
                database, buildStep, rootfs, m);
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
