package dev.slipway.kubernetes;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;

import io.fabric8.kubernetes.client.KubernetesClientTimeoutException;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** Where the router reaches a Service: its cluster IP and port, as the API server assigned them. */
record ServiceAddress(String host, int port) {

    static Optional<ServiceAddress> of(Service s) {
        if (s == null || s.getSpec() == null) return Optional.empty();
        String ip = s.getSpec().getClusterIP();
        if (ip == null || ip.isBlank() || ip.equals("None")) return Optional.empty();
        if (s.getSpec().getPorts() == null || s.getSpec().getPorts().isEmpty()) return Optional.empty();
        Integer port = s.getSpec().getPorts().getFirst().getPort();
        return port == null ? Optional.empty() : Optional.of(new ServiceAddress(ip, port));
    }

    /** The Service's address once it has a cluster IP (a real API server assigns it at creation), watched, not polled. */
    static ServiceAddress await(KubernetesClient client, String namespace, String name, Duration timeout) {
        try {
            Service s = client.services().inNamespace(namespace).withName(name)
                    .waitUntilCondition(svc -> of(svc).isPresent(), timeout.toMillis(), TimeUnit.MILLISECONDS);
            return of(s).orElseThrow();
        } catch (KubernetesClientTimeoutException e) {
            throw new IllegalStateException("the Service " + namespace + "/" + name + " has no cluster IP after "
                    + timeout.toSeconds() + " s");
        }
    }
}
