package dev.slipway.statuses;

import dev.slipway.api.AppUrls;
import dev.slipway.deployments.Deployment;
import dev.slipway.deployments.DeploymentStatus;
import dev.slipway.deployments.DeploymentStore;
import org.jdbi.v3.core.Handle;

/**
 * Queues a commit status for each change of a deployment of a git project that has an HTTPS token and has not
 * turned {@code commit_statuses} off, in the transaction of the change: queued, building and deploying are
 * pending or running, live is success (its address), failed is failure (its dashboard page). A rolled-back
 * deployment keeps its status: the commit was deployed.
 */
public final class StatusOutbox implements DeploymentStore.Listener {
    public static final String PRODUCTION = "slipway/production";
    public static final String PREVIEW = "slipway/preview";

    private final StatusStore store;
    private final AppUrls urls;
    private final Runnable wake;

    /** @param wake what to run once a transaction that queued a status commits (the sender's wake-up) */
    public StatusOutbox(StatusStore store, AppUrls urls, Runnable wake) {
        this.store = store;
        this.urls = urls;
        this.wake = wake;
    }

    private record Repo(String name, String source, String repo, boolean reports) {}

    @Override
    public void changed(Handle h, Deployment d) {
        // before its fetch records the commit there is nothing to report on; a rolled-back one keeps its status
        if (d.commitSha() == null || d.status() == DeploymentStatus.ROLLED_BACK) return;
        Repo r = repo(h, d.projectId());
        if (r == null || !r.reports() || StatusApi.of(r.source()) == null) return;
        store.put(h, d.id(), d.projectId(), r.source(), r.repo(), d.commitSha(), status(d, r.name()));
        if (h.isInTransaction()) h.afterCommit(wake);
        else wake.run();
    }

    @Override
    public void sourceKnown(Handle h, Deployment d) {
        changed(h, d);
    }

    private CommitStatus status(Deployment d, String projectName) {
        String context = d.preview() ? PREVIEW : PRODUCTION;
        String page = urls.api("/dashboard/deployments/" + d.id());
        return switch (d.status()) {
            case QUEUED -> new CommitStatus(CommitStatus.State.PENDING, context, "Queued", page);
            case BUILDING -> new CommitStatus(CommitStatus.State.RUNNING, context, "Building", page);
            case DEPLOYING -> new CommitStatus(CommitStatus.State.RUNNING, context, "Deploying", page);
            case LIVE -> new CommitStatus(CommitStatus.State.SUCCESS, context,
                    d.preview() ? "The preview is live" : "Live in production", urls.deployment(projectName, d.shortId()));
            case FAILED, ROLLED_BACK -> new CommitStatus(CommitStatus.State.FAILURE, context,
                    "The deployment failed: its log says why", page);
        };
    }

    /** The project's repository, and whether it reports statuses: a token, and commit_statuses not false. */
    private static Repo repo(Handle h, String projectId) {
        return h.createQuery("""
                        SELECT p.name, p.source, p.repo, g.credential_type, g.commit_statuses FROM projects p
                        LEFT JOIN project_git g ON g.project_id = p.id WHERE p.id = :p""")
                .bind("p", projectId)
                .map((rs, ctx) -> new Repo(rs.getString(1), rs.getString(2), rs.getString(3),
                        "token".equals(rs.getString(4)) && !Boolean.FALSE.equals(rs.getObject(5, Boolean.class))))
                .findOne().orElse(null);
    }
}
