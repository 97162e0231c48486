package dev.slipway.domains;

import dev.slipway.projects.ProjectChanges;
import dev.slipway.projects.ProjectStore;
import dev.slipway.router.RouteTable;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Keeps this server's custom domain routes in step with the store when other servers change them: on
 * PostgreSQL every committed project change reaches each server ({@code ProjectCache#follow}); the project is
 * read again and its route table entry made what the store says (its verified domain, or none). After the feed
 * reconnects, every domain is read again. Reads run off the feed's thread, one at a time.
 */
public final class DomainRoutes implements ProjectChanges, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DomainRoutes.class);

    private final ProjectStore projects;
    private final RouteTable routes;
    private final ExecutorService executor = Executors.newSingleThreadExecutor(Thread.ofVirtual().name("domain-routes").factory());

    public DomainRoutes(ProjectStore projects, RouteTable routes) {
        this.projects = projects;
        this.routes = routes;
    }

    @Override
    public void changed(String projectId) {
        try {
            executor.execute(() -> sync(projectId));
        } catch (RejectedExecutionException closed) {
            // the server is stopping
        }
    }

    private void sync(String projectId) {
        try {
            if (projectId == null) routes.replaceDomains(projects.servedDomains());
            else projects.find(projectId).ifPresent(p -> routes.syncDomain(p.name(), p.servedDomain()));
        } catch (RuntimeException e) {
            LOG.warn("could not bring the domain routes of {} up to date: {}", projectId == null ? "all projects" : projectId, e.toString());
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
