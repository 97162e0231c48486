package dev.slipway.kubernetes;

import io.fabric8.kubernetes.client.KubernetesClientException;

import java.util.function.Supplier;

/**
 * Read-change-write of an object (fabric8's {@code edit} sends the version it read): another writer may have
 * written it in between (the cluster's controllers keep a Deployment's status), and the API answers 409. Such a
 * write is made again on the latest version, a few times, as client-go's {@code RetryOnConflict} does.
 */
final class Conflicts {
    static final int ATTEMPTS = 5;

    private Conflicts() {
    }

    static <T> T retry(Supplier<T> write) {
        for (int attempt = 1; ; attempt++) {
            try {
                return write.get();
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409 || attempt == ATTEMPTS) throw e;
            }
        }
    }
}
