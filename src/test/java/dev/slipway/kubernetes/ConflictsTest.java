package dev.slipway.kubernetes;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A scale meets the 409 a real cluster answers when its deployment controller wrote the Deployment's status
 * between our read and our write: it is made again on the latest version, a bounded number of times; any other
 * refusal is not tried again.
 */
@EnableKubernetesMockClient(crud = true, https = false)
class ConflictsTest {
    private static final String NS = "slipway-apps";
    private static final String NAME = "d-dep-conflict";
    private static final String PATH = "/apis/apps/v1/namespaces/" + NS + "/deployments/" + NAME;

    KubernetesMockServer server;
    KubernetesClient client;

    @BeforeEach
    void deployment() {
        client.apps().deployments().inNamespace(NS).resource(new DeploymentBuilder().withNewMetadata().withName(NAME)
                .withNamespace(NS).endMetadata().withNewSpec().withReplicas(1).endSpec().build()).create();
    }

    private int replicas() {
        Deployment d = client.apps().deployments().inNamespace(NS).withName(NAME).get();
        return d.getSpec().getReplicas();
    }

    private void refuse(int code, int times) {
        server.expect().patch().withPath(PATH).andReturn(code, new StatusBuilder().withCode(code)
                .withMessage(code == 409 ? "Operation cannot be fulfilled on deployments.apps \"" + NAME
                        + "\": the object has been modified; please apply your changes to the latest version and try again"
                        : "deployments.apps \"" + NAME + "\" is forbidden").build()).times(times);
    }

    @Test
    void aWriteThatMeetsAConflictIsMadeAgainOnTheLatestVersion() {
        refuse(409, Conflicts.ATTEMPTS - 1);
        assertThat(Scaling.scale(client, NS, NAME, 0)).isTrue();
        assertThat(replicas()).isZero();
    }

    @Test
    void conflictsWithoutEndGiveUpAfterTheLastAttempt() {
        refuse(409, Conflicts.ATTEMPTS);
        assertThatThrownBy(() -> Scaling.scale(client, NS, NAME, 0))
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(409));
        assertThat(replicas()).isEqualTo(1);
    }

    @Test
    void anyOtherRefusalIsNotTriedAgain() {
        refuse(403, 1);
        assertThatThrownBy(() -> Scaling.scale(client, NS, NAME, 0))
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
        assertThat(replicas()).isEqualTo(1);
    }
}
