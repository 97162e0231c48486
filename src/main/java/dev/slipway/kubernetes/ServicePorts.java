package dev.slipway.kubernetes;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.util.HashSet;
import java.util.Set;

/**
 * The port of each Slipway Service, distinct among them. The router tells apps apart by port (whether an
 * instance still serves it, when it was last asked, which routes to forget when it stops), as it does
 * for local processes; a ClusterIP Service may listen on any port, so each gets its own rather than 80.
 * A port is first derived from the Service's name, then probed past those in use.
 */
final class ServicePorts {
    static final int FIRST = 20_000;
    static final int COUNT = 40_000;

    private ServicePorts() {
    }

    static int pick(KubernetesClient client, String namespace, boolean anyNamespace, String serviceName) {
        var services = anyNamespace ? client.services().inAnyNamespace().withLabel(Names.MANAGED_BY, Names.SLIPWAY).list()
                : client.services().inNamespace(namespace).withLabel(Names.MANAGED_BY, Names.SLIPWAY).list();
        Set<Integer> used = new HashSet<>();
        for (Service s : services.getItems()) {
            if (s.getSpec() == null || s.getSpec().getPorts() == null) continue;
            for (ServicePort p : s.getSpec().getPorts()) if (p.getPort() != null) used.add(p.getPort());
        }
        int start = Math.floorMod(serviceName.hashCode(), COUNT);
        for (int i = 0; i < COUNT; i++) {
            int port = FIRST + (start + i) % COUNT;
            if (!used.contains(port)) return port;
        }
        throw new IllegalStateException("every Service port from " + FIRST + " is in use");
    }
}
