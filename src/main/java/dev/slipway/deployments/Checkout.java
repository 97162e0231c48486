package dev.slipway.deployments;

import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;
import dev.slipway.projects.Project;
import dev.slipway.source.FetchedSource;
import dev.slipway.source.Workspaces;

import java.nio.file.Path;

/** Puts a deployment's source in its own workspace: its zip upload extracted, or its commit fetched. */
final class Checkout {
    /** The source to build, and the commit it is (as asked, for a zip). */
    record Source(Path dir, String commitSha) {}

    private final DeploymentRunner.Sources sources;
    private final DeploymentStore deployments;

    Checkout(DeploymentRunner.Sources sources, DeploymentStore deployments) {
        this.sources = sources;
        this.deployments = deployments;
    }

    Path workspace(String deploymentId) {
        return sources.workspaces().resolve(deploymentId);
    }

    Source fetch(Deployment d, Project project, LogSink log) {
        Path workspace = workspace(d.id());
        Workspaces.delete(workspace);
        if ("zip".equals(project.source())) {
            String uploadId = d.uploadId() != null ? d.uploadId() : deployments.latestUploadId(project.id())
                    .orElseThrow(() -> new IllegalStateException("this zip project has no upload to deploy; pass upload_id"));
            var upload = sources.uploads().find(uploadId).orElseThrow(() -> new IllegalStateException("upload " + uploadId + " is gone"));
            log.log(Level.INFO, "Extracting upload " + upload.id() + " (" + upload.sizeBytes() + " bytes, sha256 " + upload.sha256().substring(0, 12) + "…)");
            return new Source(sources.zips().extract(upload.path(), workspace), d.commitSha());
        }
        // the branch the deployment was asked for (a preview's), which a later change of the project's does not move
        String branch = d.branch() != null ? d.branch() : project.branch();
        FetchedSource fetched = sources.git().fetch(project.source(), project.repo(), branch, d.commitSha(), workspace, log,
                sources.gitSettings().credentials(project.id()).orElse(null));
        deployments.recordSource(d.id(), fetched.commitSha(), fetched.commitMessage());
        return new Source(fetched.dir(), fetched.commitSha());
    }
}
