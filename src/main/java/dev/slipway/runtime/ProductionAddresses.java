package dev.slipway.runtime;

import java.util.Optional;

/**
 * What a runtime offers when it owns each project's production address (the Kubernetes runtime: a per-project
 * Service whose selector moves), reached through {@link AppRuntime#productionAddresses}. Without it,
 * production is routed to the instance itself (the local runtime).
 */
public interface ProductionAddresses {

    /**
     * Makes the deployment's instance what the project's production address reaches, once it is healthy
     * (promotion, warm rollback), and returns that address.
     */
    Instance switchProduction(String projectId, String deploymentId);

    /**
     * The project's production address as the runtime has it now, without changing it (a server that did not
     * promote, routing a request or restoring its routes). Empty: the project has none yet.
     */
    Optional<Instance> production(String projectId);
}
