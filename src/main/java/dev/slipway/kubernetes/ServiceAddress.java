package dev.slipway.kubernetes;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

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

    /** Reads the Service until it has a cluster IP (assigned at creation by a real API server). */
    static ServiceAddress await(KubernetesClient client, String namespace, String name, Duration timeout, Clock clock) {
        Instant deadline = clock.instant().plus(timeout);
        while (true) {
            Optional<ServiceAddress> a = of(client.services().inNamespace(namespace).withName(name).get());
            if (a.isPresent()) return a.get();
            if (!clock.instant().isBefore(deadline)) {
                throw new IllegalStateException("the Service " + namespace + "/" + name + " has no cluster IP after "
                        + timeout.toSeconds() + " s");
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while reading the Service " + name, e);
            }
        }
    }
}
