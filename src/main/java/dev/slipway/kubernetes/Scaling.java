package dev.slipway.kubernetes;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Objects;

/**
 * Scales a deployment by patching {@code spec.replicas} (the RBAC grants patch on deployments, not the scale
 * subresource): 0 to retire it, 1 for a cold rollback or a wake-up.
 */
final class Scaling {
    private Scaling() {
    }

    /**
     * On a Deployment kept up after it left production: when its retirement window ends (ISO-8601). The
     * cluster is the state, so a restarted server, or any other, finds the schedule here.
     */
    static final String STOP_AFTER = "slipway.dev/stop-after";

    /** Returns false when the Deployment does not exist. Either way a scale ends a pending retirement. */
    static boolean scale(KubernetesClient client, String namespace, String name, int replicas) {
        var resource = client.apps().deployments().inNamespace(namespace).withName(name);
        Deployment current = resource.get();
        if (current == null) return false;
        if (current.getSpec() != null && Integer.valueOf(replicas).equals(current.getSpec().getReplicas())
                && stopAfter(current) == null) return true;
        Conflicts.retry(() -> resource.edit(d -> {
            Deployment out = new DeploymentBuilder(d).editSpec().withReplicas(replicas).endSpec().build();
            if (out.getMetadata().getAnnotations() != null) out.getMetadata().getAnnotations().remove(STOP_AFTER);
            return out;
        }));
        return true;
    }

    /** Records (or with null clears) when a retired Deployment is due to be scaled to zero. */
    static void retireAt(KubernetesClient client, String namespace, String name, Instant at) {
        var resource = client.apps().deployments().inNamespace(namespace).withName(name);
        Deployment current = resource.get();
        if (current == null || Objects.equals(stopAfter(current), at)) return;
        Conflicts.retry(() -> resource.edit(d -> {
            Deployment out = new DeploymentBuilder(d).build();
            Map<String, String> annotations = new LinkedHashMap<>(
                    out.getMetadata().getAnnotations() == null ? Map.of() : out.getMetadata().getAnnotations());
            if (at == null) annotations.remove(STOP_AFTER);
            else annotations.put(STOP_AFTER, at.toString());
            out.getMetadata().setAnnotations(annotations);
            return out;
        }));
    }

    /** The recorded end of the retirement window; null when none (or an unreadable one). */
    static Instant stopAfter(Deployment d) {
        Map<String, String> a = d.getMetadata() == null ? null : d.getMetadata().getAnnotations();
        String v = a == null ? null : a.get(STOP_AFTER);
        if (v == null) return null;
        try {
            return Instant.parse(v);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    static int replicas(Deployment d) {
        return d.getSpec() == null || d.getSpec().getReplicas() == null ? 1 : d.getSpec().getReplicas();
    }
}
