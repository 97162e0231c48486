package dev.slipway.runtime;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ReplicaKeysTest {
    @Test
    void eachReplicaHasAKeyThatNamesItsDeploymentAndIndex() {
        String id = "dep_01m8d9gx47e8709w0te3htj41t";
        assertThat(Replicas.key(id, 0)).isEqualTo(id);
        assertThat(Replicas.key(id, 3)).isEqualTo(id + ".r3");
        for (int i = 0; i < Replicas.MAX; i++) {
            assertThat(Replicas.deploymentOf(Replicas.key(id, i))).isEqualTo(id);
            assertThat(Replicas.indexOf(Replicas.key(id, i))).isEqualTo(i);
            assertThat(Replicas.key(id, i)).hasSizeLessThanOrEqualTo(40).matches("[A-Za-z0-9_.-]{1,100}"); // a stored id, a cell name
        }
        assertThat(Replicas.deploymentOf("dep_x.rx")).isEqualTo("dep_x.rx");
        assertThatThrownBy(() -> Replicas.key(id, Replicas.MAX)).isInstanceOf(IllegalArgumentException.class);
    }
}
