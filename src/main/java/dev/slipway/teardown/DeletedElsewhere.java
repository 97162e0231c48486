package dev.slipway.teardown;

import dev.slipway.projects.ProjectChanges;
import dev.slipway.router.RouteTable;
import dev.slipway.runtime.AppRuntime;
import dev.slipway.runtime.Instance;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;

/**
 * On a server that shares its store with others (PostgreSQL tells each of every project change): when another server
 * marks a project deleting, this one takes its addresses out of its router, stops the project's apps it runs and
 * deletes its volumes on this server's disk, as the server running the teardown does for its own. Off the feed's thread, one at a time.
 */
public final class DeletedElsewhere implements ProjectChanges, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DeletedElsewhere.class);

    private final TeardownStore store;
    private final RouteTable routes;
    private final AppRuntime runtime;
    private final ExecutorService executor = Executors.newSingleThreadExecutor(Thread.ofVirtual().name("deleted-elsewhere").factory());

    public DeletedElsewhere(TeardownStore store, RouteTable routes, AppRuntime runtime) {
        this.store = store;
        this.routes = routes;
        this.runtime = runtime;
    }

    @Override
    public void changed(String projectId) {
        if (projectId == null || projectId.isEmpty()) return; // a reconnect: a restart's recovery handles what it missed
        try {
            executor.execute(() -> stop(projectId));
        } catch (RejectedExecutionException closed) {
            // the server is stopping
        }
    }

    private void stop(String projectId) {
        try {
            var marked = store.find(projectId).filter(TeardownStore.Marked::deleting);
            if (marked.isEmpty()) return;
            routes.removeProject(marked.get().name());
            for (Instance i : runtime.list()) {
                if (i.projectId().equals(projectId)) runtime.stop(i.deploymentId());
            }
            runtime.deleteVolumes(projectId); // this server's disks of them
        } catch (RuntimeException | java.io.IOException e) {
            LOG.warn("could not stop the apps of deleted project {}: {}", projectId, e.toString());
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
