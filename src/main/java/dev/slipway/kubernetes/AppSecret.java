package dev.slipway.kubernetes;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;

import java.util.Map;
import java.util.TreeMap;

/** The app's env vars (DATABASE_URL included), which the Deployment takes with {@code envFrom}. */
final class AppSecret {
    private AppSecret() {
    }

    static Secret build(String namespace, Map<String, String> labels, String deploymentId, Map<String, String> env) {
        Map<String, String> data = new TreeMap<>(env);
        data.remove("PORT"); // the runtime's, set on the container
        return new SecretBuilder()
                .withNewMetadata().withName(Names.secret(deploymentId)).withNamespace(namespace).withLabels(labels).endMetadata()
                .withType("Opaque")
                .withStringData(data)
                .withImmutable(false)
                .build();
    }
}
