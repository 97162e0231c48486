package dev.slipway.kubernetes;

import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;
import dev.slipway.runtime.StartFailedException;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/** Placeholder (replaced by the podwatch branch): polls the Deployment until it has a ready replica. */
public final class PodHealth {
    private PodHealth() {
    }

    public static void awaitReady(KubernetesClient client, String namespace, String deploymentName, Duration timeout,
                                  LogSink log, Clock clock) throws StartFailedException {
        Instant deadline = clock.instant().plus(timeout);
        while (true) {
            Deployment d = client.apps().deployments().inNamespace(namespace).withName(deploymentName).get();
            if (d == null) throw new StartFailedException("the Deployment " + deploymentName + " is gone");
            Integer ready = d.getStatus() == null ? null : d.getStatus().getReadyReplicas();
            if (ready != null && ready > 0) return;
            if (!clock.instant().isBefore(deadline)) {
                log.log(Level.ERROR, "No pod of " + deploymentName + " became ready");
                throw new StartFailedException("no pod of " + deploymentName + " became ready within " + timeout.toSeconds() + " s");
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new StartFailedException("interrupted while waiting for " + deploymentName, e);
            }
        }
    }

    public static Optional<String> failureReason(Pod pod) {
        return Optional.empty();
    }
}
