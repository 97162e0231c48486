package dev.slipway.build;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/**
 * An immutable build result under {@code <data dir>/artifacts/<id>}, reusable by any later deployment
 * of the same project (a rollback starts it without building).
 *
 * @param root         the artifact directory: the built app, ready to start
 * @param startCommand argv to start the app, run with {@code root} as working directory; the token
 *                     {@code ${PORT}} in an argument is replaced by the port the runtime assigns
 *                     (PORT is also in the environment). Empty for a static site.
 * @param staticRoot   for static sites (react-vite): the directory the router serves with SPA
 *                     fallback; null for apps that run a process
 */
public record Artifact(String id, String projectId, String framework, String commitSha, Path root,
                       List<String> startCommand, Path staticRoot, Instant createdAt) {
    public boolean isStatic() {
        return staticRoot != null;
    }
}
