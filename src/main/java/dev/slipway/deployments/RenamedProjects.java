package dev.slipway.deployments;

import dev.slipway.projects.Project;
import dev.slipway.projects.ProjectChanges;
import dev.slipway.projects.ProjectStore;
import dev.slipway.projects.Renames;
import dev.slipway.router.RouteTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;

/**
 * Keeps this server's routes named as the projects are: told of a rename by the API on this server, and of every project
 * change through the store's feed (another server's rename among them), it moves the project's routes from its old name
 * to its new one. It remembers each project's name to know the old one.
 */
public final class RenamedProjects implements Renames, ProjectChanges, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RenamedProjects.class);

    private final ProjectStore projects;
    private final RouteTable routes;
    private final Map<String, String> names = new ConcurrentHashMap<>();
    private final ExecutorService executor = Executors.newSingleThreadExecutor(Thread.ofVirtual().name("renamed-projects").factory());

    public RenamedProjects(ProjectStore projects, RouteTable routes) {
        this.projects = projects;
        this.routes = routes;
        names.putAll(projects.names());
    }

    @Override
    public synchronized void renamed(String projectId, String from, String to) {
        routes.renameProject(from, to);
        names.put(projectId, to);
    }

    @Override
    public void changed(String projectId) {
        try {
            executor.execute(() -> follow(projectId));
        } catch (RejectedExecutionException closed) {
            // the server is stopping
        }
    }

    private void follow(String projectId) {
        try {
            if (projectId == null) { // the feed reconnected: any project may have changed meanwhile
                projects.names().forEach(this::compare);
                return;
            }
            Optional<Project> p = projects.find(projectId);
            if (p.isEmpty()) names.remove(projectId);
            else compare(projectId, p.get().name());
        } catch (RuntimeException e) {
            LOG.warn("could not follow the name of project {}: {}", projectId, e.toString());
        }
    }

    private synchronized void compare(String projectId, String name) {
        String known = names.put(projectId, name);
        if (known != null && !known.equals(name)) routes.renameProject(known, name);
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
