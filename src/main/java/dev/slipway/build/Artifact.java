package dev.slipway.build;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/**
 * An immutable build result under {@code <data dir>/artifacts/<id>}, reusable by any later deployment
 * of the same project (a rollback starts it without building).
 *
 * @param root         the artifact directory: the built source tree, ready to start
 * @param startCommand argv to start the app, run in {@link #workDir()}; the token {@code ${PORT}} in an
 *                     argument is replaced by the port the runtime assigns (PORT is also in the environment).
 *                     Empty for a static site.
 * @param staticRoot   for static sites: the directory the router serves; null for apps that run a process
 * @param spaFallback  a static site whose unknown paths get its index.html (a Vite app without a 404.html)
 * @param appDir       the app's folder inside {@code root} (the project's root directory), or null for root itself
 * @param tools        tool homes the app runs with (a Node build, a package manager, under the data dir's
 *                     toolchains): the runtime puts each one's {@code bin} first on PATH and lets the app's cell
 *                     see it read-only. Empty: the machine's Node and npm. Recorded with the artifact, so a
 *                     rollback or a restart runs the Node it was built with.
 * @param image        for an OCI image (pulled, or built from a Dockerfile): how it runs, its root file system under
 *                     {@code root}; null for a native build, which runs on the host's layout
 */
public record Artifact(String id, String projectId, String framework, String commitSha, Path root,
                       List<String> startCommand, Path staticRoot, boolean spaFallback, String appDir,
                       Instant createdAt, List<Path> tools, ImageRun image) {

    public Artifact {
        if (appDir != null && (appDir.isBlank() || appDir.equals("."))) appDir = null;
        tools = tools == null ? List.of() : List.copyOf(tools);
    }

    /** A native build. */
    public Artifact(String id, String projectId, String framework, String commitSha, Path root,
                    List<String> startCommand, Path staticRoot, boolean spaFallback, String appDir,
                    Instant createdAt, List<Path> tools) {
        this(id, projectId, framework, commitSha, root, startCommand, staticRoot, spaFallback, appDir, createdAt, tools, null);
    }

    /** A process app, or a single-page app, at the root of its artifact, on the machine's Node. */
    public Artifact(String id, String projectId, String framework, String commitSha, Path root,
                    List<String> startCommand, Path staticRoot, Instant createdAt) {
        this(id, projectId, framework, commitSha, root, startCommand, staticRoot, staticRoot != null, null, createdAt, List.of());
    }

    public Artifact(String id, String projectId, String framework, String commitSha, Path root,
                    List<String> startCommand, Path staticRoot, Instant createdAt, List<Path> tools) {
        this(id, projectId, framework, commitSha, root, startCommand, staticRoot, staticRoot != null, null, createdAt, tools);
    }

    public boolean isStatic() {
        return staticRoot != null;
    }

    /** An image's root file system is the app's {@code /}; a native build runs on the host's. */
    public boolean isImage() {
        return image != null;
    }

    /** Where the start command runs: the app's folder (for an image, the folder holding its root file system). */
    public Path workDir() {
        return appDir == null ? root : root.resolve(appDir);
    }
}
