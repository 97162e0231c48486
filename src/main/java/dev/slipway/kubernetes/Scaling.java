package dev.slipway.kubernetes;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * Scales a deployment by patching {@code spec.replicas} (the RBAC grants patch on deployments, not the scale
 * subresource): 0 to retire it, 1 for a cold rollback or a wake-up.
 */
final class Scaling {
    private Scaling() {
    }

    /** Returns false when the Deployment does not exist. */
    static boolean scale(KubernetesClient client, String namespace, String name, int replicas) {
        var resource = client.apps().deployments().inNamespace(namespace).withName(name);
        Deployment current = resource.get();
        if (current == null) return false;
        if (current.getSpec() != null && Integer.valueOf(replicas).equals(current.getSpec().getReplicas())) return true;
        resource.edit(d -> new DeploymentBuilder(d).editSpec().withReplicas(replicas).endSpec().build());
        return true;
    }

    static int replicas(Deployment d) {
        return d.getSpec() == null || d.getSpec().getReplicas() == null ? 1 : d.getSpec().getReplicas();
    }
}
