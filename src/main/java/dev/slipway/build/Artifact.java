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
 * @param tools        tool homes the app runs with (a Node build, a package manager, under the data dir's
 *                     toolchains): the runtime puts each one's {@code bin} first on PATH and lets the app's cell
 *                     see it read-only. Empty: the machine's Node and npm. Recorded with the artifact, so a
 *                     rollback or a restart runs the Node it was built with.
 */
public record Artifact(String id, String projectId, String framework, String commitSha, Path root,
                       List<String> startCommand, Path staticRoot, Instant createdAt, List<Path> tools) {
    public Artifact {
        tools = tools == null ? List.of() : List.copyOf(tools);
    }

    public Artifact(String id, String projectId, String framework, String commitSha, Path root,
                    List<String> startCommand, Path staticRoot, Instant createdAt) {
        this(id, projectId, framework, commitSha, root, startCommand, staticRoot, createdAt, List.of());
    }

    public boolean isStatic() {
        return staticRoot != null;
    }
}
