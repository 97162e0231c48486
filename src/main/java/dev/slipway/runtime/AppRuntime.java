package dev.slipway.runtime;

import dev.slipway.logs.LogSink;

import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Runs deployed apps: as local processes ({@code runtime.local}) or as Kubernetes Deployments
 * ({@code kubernetes}), behind the same contract, so callers never know which.
 */
public interface AppRuntime extends AutoCloseable {

    /**
     * Starts the app and returns once it answers HTTP on its port. Idempotent: when the deployment
     * already runs here, returns that instance. Output lines and crashes go to {@code log} for as long
     * as the instance runs.
     *
     * @throws StartFailedException when it does not become healthy; the process is gone by then
     */
    Instance start(AppSpec spec, LogSink log) throws StartFailedException;

    Optional<Instance> get(String deploymentId);

    /**
     * Runs the deployment's web process as {@code replicas} instances without a rebuild: the new ones are healthy before
     * this returns. Empty when the deployment does not run here.
     */
    Optional<Instance> scale(String deploymentId, int replicas, LogSink log);

    /** As {@link #get}, but empty once a stop of the instance has begun: what may still serve requests. */
    Optional<Instance> active(String deploymentId);

    /** Stops the instance (graceful, then forced) and forgets it; a no-op when it does not run. */
    void stop(String deploymentId);

    List<Instance> list();

    /**
     * Once at server start: kills what a previous run of this node left behind and starts again every
     * instance that should run. Blocks until each one is healthy or its health deadline has passed.
     *
     * @param logs where each recovered instance writes its output, by deployment id
     */
    RecoveryReport recover(Function<String, LogSink> logs);

    /** True while the app on this port is between a crash and its restart: the router answers 503, not 502. */
    boolean restarting(int port);

    /** True while an instance of this runtime owns the port (running, starting or restarting after a crash). */
    boolean serves(int port);

    /**
     * {@code listener} runs, on the changing thread, whenever what {@link #serves} or {@link #restarting} answers may
     * have changed: an instance starts stopping (before its process is signalled), crashes, answers again, moves to
     * another port. A runtime that cannot tell leaves it unset; who asks then polls.
     */
    default void onServingChange(Runnable listener) {}

    /** True when every app (and build) runs confined; false: the server says so in every deployment log. */
    boolean isolated();

    /** Regions this runtime honours; a deployment asking for another is refused. */
    List<String> regions();

    /** The instance type label deployments report, e.g. {@code local}. */
    String instanceType();

    /** This runtime's own production addresses; empty: production is routed to the instance itself. */
    Optional<ProductionAddresses> productionAddresses();

    /** The retirement schedule this runtime keeps itself; empty: the instance rows' is the only one. */
    Optional<RetirementSchedule> retirementSchedule();

    /**
     * From now on, the running app of {@code deploymentId} (and its workers) writes its output to {@code to}: the log of
     * the deployment that a warm rollback made it serve. A runtime that reads its apps' output elsewhere ignores it.
     */
    default void redirectOutput(String deploymentId, LogSink to) {
    }

    /** Deletes the project's volumes and all they hold (it is being deleted, its apps stopped); a no-op when it has none. */
    default void deleteVolumes(String projectId) throws java.io.IOException {
    }

    /** How this runtime runs a deployment's release command; empty: it cannot. */
    Optional<ReleaseCommands> releaseCommands();

    /** Whether a deployment's other Procfile processes (workers) run beside its app here. */
    boolean runsWorkers();

    /**
     * What the deployment's processes here use now, summed (its web instances and workers); empty when it runs none here or
     * nothing measures them (an unconfined runtime).
     */
    default Optional<dev.slipway.isolation.CellUsage> usage(String deploymentId) {
        return Optional.empty();
    }

    /**
     * Whether every server reads the same apps' usage (a cluster's pods), so that one server at a time must report it;
     * false where each server's apps are its own.
     */
    default boolean sharedUsage() {
        return false;
    }

    /** The deployment's processes this runtime runs now, its app's first; empty when it runs none of them. */
    List<ProcessState> processes(String deploymentId);

    /** Server shutdown: stops every process but keeps what should run, so the next start recovers it. */
    @Override
    void close();

    /**
     * Stops this server's part and leaves the apps running, for the next start to adopt ({@link #recover}); a runtime
     * whose apps do not run in the server just closes.
     */
    default void leave() {
        close();
    }
}
