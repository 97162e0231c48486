package dev.slipway.kubernetes;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;

import java.util.Map;

/**
 * The Services: one per deployment (its preview address) and one per project (production), each a
 * ClusterIP on a port of its own (see {@link ServicePorts}) to the app's port.
 */
final class AppService {
    private AppService() {
    }

    static Service forDeployment(String namespace, Map<String, String> labels, String deploymentId, int port) {
        return service(namespace, Names.deployment(deploymentId), labels, Names.selector(deploymentId), port);
    }

    static Service production(String namespace, Map<String, String> labels, String projectId, String deploymentId, int port) {
        return service(namespace, Names.production(projectId), labels, Names.selector(deploymentId), port);
    }

    private static Service service(String namespace, String name, Map<String, String> labels, Map<String, String> selector,
                                   int port) {
        return new ServiceBuilder()
                .withNewMetadata().withName(name).withNamespace(namespace).withLabels(labels).endMetadata()
                .withNewSpec()
                    .withType("ClusterIP")
                    .withSelector(selector)
                    .addNewPort().withName("http").withProtocol("TCP").withPort(port)
                        .withTargetPort(new IntOrString(Names.APP_PORT)).endPort()
                .endSpec()
                .build();
    }
}
