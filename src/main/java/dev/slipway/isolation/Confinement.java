package dev.slipway.isolation;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * Starts app processes and build steps. {@link Sandbox} confines each one (its own identity, file view,
 * network and limits); {@link Unconfined} runs it as a plain child of the server. The runtime and the
 * build run everything through this, so they never know which one it is.
 */
public interface Confinement {
    /** Starts the cell with its output on pipes to this JVM. */
    default Confined start(Cell cell) throws IOException {
        return start(cell, null);
    }

    /**
     * Starts the cell; {@code output} (null: pipes) is a file its stdout and stderr are appended to, which outlives
     * this JVM: an app's cell keeps running, and keeps its output, while the server is away.
     */
    Confined start(Cell cell, Path output) throws IOException;

    /**
     * Takes over the cell that an earlier run of the server started as {@code cell} and that still runs as {@code pid}
     * (the caller has checked the pid is that process): empty when what it needs is gone (its cgroup, its network),
     * and then the caller kills it and starts it anew.
     */
    default Optional<Confined> adopt(Cell cell, long pid) {
        return Optional.empty();
    }

    /**
     * Starts a build step that builds an image (buildah): it makes a user namespace of its own, so it runs with the
     * cell's uid, network and limits but outside bubblewrap ({@link Sandbox#startImageBuild}), with {@code dataDir}
     * out of its sight. Only a sandbox can: unconfined, a Dockerfile's {@code RUN} would be the server's.
     */
    default Confined startImageBuild(Cell cell, Path dataDir) throws IOException {
        throw new IOException("Dockerfile builds run only in the sandbox (this server runs apps unconfined)");
    }

    /**
     * A loopback port for an app cell about to start, when the confinement has one ready (a sandbox's network
     * made ahead); empty: the caller picks a free one.
     */
    default OptionalInt reservePort() {
        return OptionalInt.empty();
    }

    /** True when tenants' code is confined. */
    boolean isolated();

    /** One line for logs, {@code /readyz} and the dashboard. */
    String summary();

    /**
     * Why this server has no working sandbox when it looked for one ({@code --isolation=auto}): it then serves only
     * its first account ({@link AccountAdmission}). Empty with a sandbox, and with isolation off by the operator's choice.
     */
    default Optional<SandboxProblem> missingSandbox() {
        return Optional.empty();
    }

    /** What the server says at start, in {@code /healthz}, {@code /readyz} and on every dashboard page; null when apps are isolated. */
    default String warning() {
        return isolated() ? null : NOT_ISOLATED;
    }

    /**
     * Makes a directory tree the project's own, so that its confined build steps may write it (the workspace,
     * its caches). A no-op when nothing is confined.
     */
    default void handOver(Path dir, String projectId) throws IOException {}

    /** Once at start: removes what confined processes of an earlier run of this server left (cgroups, handles). */
    default void sweep() {
        sweep(Set.of());
    }

    /** As {@link #sweep()}, sparing what the cells of these names hold: they are adopted next. */
    default void sweep(Set<String> adopted) {}

    /** At a clean stop, once every cell is released: removes what this server keeps outside its data dir. */
    default void close() {}

    /**
     * At a stop that leaves the apps' cells running for the next start to adopt: removes only what no cell holds
     * (networks made ahead), keeps what the running cells need.
     */
    default void leave() {}

    /** The words every deployment log starts with when apps are not isolated. */
    String NOT_ISOLATED = "WARNING: apps are not isolated on this server (no sandbox): every app and build runs "
            + "as the server's own user and can read the platform's data; install bubblewrap, passt and nftables "
            + "and restart with --isolation=sandbox";
}
