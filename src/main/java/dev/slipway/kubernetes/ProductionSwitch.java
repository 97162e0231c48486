package dev.slipway.kubernetes;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The project's production Service {@code p-<project>}: its selector names one deployment's pods, and
 * moves to another in one update of the Service (promotion, warm rollback). A Service rather than a
 * Gateway API HTTPRoute: the router is Slipway's own (it does Host routing, custom domains, TLS and
 * wake-ups), so it needs an address per project, not an L7 route; a Service needs no Gateway
 * controller installed, and its selector switch is one atomic object update.
 */
final class ProductionSwitch {
    private ProductionSwitch() {
    }

    /** Points production at {@code deploymentId}; returns the previous deployment it selected, or null. */
    static String switchTo(KubernetesClient client, String namespace, String accountId, String projectId, String deploymentId,
                           boolean anyNamespace) {
        String name = Names.production(projectId);
        var resource = client.services().inNamespace(namespace).withName(name);
        Service current = resource.get();
        if (current == null) {
            Map<String, String> labels = new LinkedHashMap<>();
            labels.put(Names.MANAGED_BY, Names.SLIPWAY);
            labels.put(Names.ACCOUNT, accountId);
            labels.put(Names.PROJECT, projectId);
            labels.put(Names.ROLE, Names.PRODUCTION);
            int port = ServicePorts.pick(client, namespace, anyNamespace, name);
            client.services().resource(AppService.production(namespace, labels, projectId, deploymentId, port)).create();
            return null;
        }
        String before = current.getSpec() == null || current.getSpec().getSelector() == null ? null
                : current.getSpec().getSelector().get(Names.DEPLOYMENT);
        if (deploymentId.equals(before)) return before;
        Conflicts.retry(() -> resource.edit(s -> new ServiceBuilder(s).editSpec().withSelector(Names.selector(deploymentId)).endSpec().build()));
        return before;
    }
}
