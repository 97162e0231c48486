package dev.slipway.wake;

import dev.slipway.runtime.Runtime;
import org.jdbi.v3.core.Jdbi;

import java.util.function.Predicate;

/**
 * Whether a deployment's instance serves a project's production: it is production itself, or
 * production is a rollback to it that has no process of its own (it was switched to this one).
 * Asked before a retired or woken instance is stopped, so a rollback racing a retirement keeps its app.
 */
public final class ProductionInstances implements Predicate<String> {
    private final Jdbi jdbi;
    private final Runtime runtime;

    public ProductionInstances(Jdbi jdbi, Runtime runtime) {
        this.jdbi = jdbi;
        this.runtime = runtime;
    }

    @Override
    public boolean test(String deploymentId) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT p.production_deployment_id FROM projects p
                        JOIN deployments d ON d.id = p.production_deployment_id
                        WHERE p.production_deployment_id = :id OR d.rollback_of = :id""")
                .bind("id", deploymentId).mapTo(String.class).list())
                .stream().anyMatch(production -> production.equals(deploymentId) || runtime.active(production).isEmpty());
    }
}
