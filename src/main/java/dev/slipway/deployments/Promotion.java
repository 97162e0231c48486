package dev.slipway.deployments;

import dev.slipway.logs.Level;
import dev.slipway.projects.ProjectStore;

import java.util.Optional;

/**
 * The store side of a deployment going live, in one transaction: it becomes live and production,
 * the deployment a rollback moved away from becomes rolled_back, and a migration completes.
 */
final class Promotion {
    private final DeploymentStore deployments;
    private final ProjectStore projects;
    private final MigrationProgress migrations;

    Promotion(DeploymentStore deployments, ProjectStore projects, MigrationProgress migrations) {
        this.deployments = deployments;
        this.projects = projects;
        this.migrations = migrations;
    }

    /** A preview goes live at its own address; production does not change. */
    void preview(Deployment d, String url) {
        if (!deployments.transition(d.id(), DeploymentStatus.DEPLOYING, DeploymentStatus.LIVE, Level.SUCCESS,
                "Preview is live at " + url + " (production is unchanged)")) {
            throw new IllegalStateException("deployment " + d.id() + " left deploying while going live");
        }
    }

    /** Returns the deployment that was production before, if another. */
    Optional<String> promote(Deployment d, String url) {
        return deployments.jdbi().inTransaction(h -> {
            String previous = projects.lockProduction(h, d.projectId()).orElse(null);
            // production first: the live event written with the transition shows the deployment as production
            projects.setProduction(h, d.projectId(), d.id());
            if (!deployments.transition(h, d.id(), DeploymentStatus.DEPLOYING, DeploymentStatus.LIVE, Level.SUCCESS,
                    "Deployment is live at " + url)) {
                throw new IllegalStateException("deployment " + d.id() + " left deploying while going live");
            }
            if (d.rollbackOf() != null && d.rolledBackFrom() != null) {
                deployments.transition(h, d.rolledBackFrom(), DeploymentStatus.LIVE, DeploymentStatus.ROLLED_BACK,
                        Level.INFO, "Rolled back: production is now " + d.id() + " (the code of " + d.rollbackOf() + ")");
            }
            if (d.migrationId() != null) migrations.completed(h, d.migrationId(), url);
            return Optional.ofNullable(previous).filter(p -> !p.equals(d.id()));
        });
    }
}
