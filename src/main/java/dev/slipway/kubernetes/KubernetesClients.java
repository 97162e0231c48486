package dev.slipway.kubernetes;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The client: a kubeconfig file when one is set, else fabric8's lookup (in-cluster service account, ~/.kube/config). */
public final class KubernetesClients {
    private KubernetesClients() {
    }

    public static KubernetesClient connect(KubernetesSettings settings) {
        Config config;
        if (settings.kubeconfig() != null) {
            try {
                config = Config.fromKubeconfig(Files.readString(Path.of(settings.kubeconfig())));
            } catch (IOException e) {
                throw new IllegalArgumentException("SLIPWAY_KUBECONFIG: cannot read " + settings.kubeconfig() + ": " + e.getMessage(), e);
            }
        } else {
            config = Config.autoConfigure(null);
        }
        return new KubernetesClientBuilder().withConfig(config).build();
    }
}
