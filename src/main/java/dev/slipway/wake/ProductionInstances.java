package dev.slipway.wake;

import dev.slipway.runtime.AppRuntime;
import dev.slipway.deployments.DeploymentStore;

import java.util.function.Predicate;

/**
 * Whether a deployment's instance serves a project's production: it is production itself, or
 * production is a rollback to it that has no process of its own (it was switched to this one).
 * Asked before a retired or woken instance is stopped, so a rollback racing a retirement keeps its app.
 */
public final class ProductionInstances implements Predicate<String> {
    private final DeploymentStore deployments;
    private final AppRuntime runtime;

    public ProductionInstances(DeploymentStore deployments, AppRuntime runtime) {
        this.deployments = deployments;
        this.runtime = runtime;
    }

    @Override
    public boolean test(String deploymentId) {
        return deployments.productionsOf(deploymentId)
                .stream().anyMatch(production -> production.equals(deploymentId) || runtime.active(production).isEmpty());
    }
}
