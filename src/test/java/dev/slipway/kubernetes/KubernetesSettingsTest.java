package dev.slipway.kubernetes;

import dev.slipway.core.Env;
import dev.slipway.config.ServerConfig;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code --runtime}, {@code --kubeconfig} and the SLIPWAY_KUBERNETES_* settings: defaults, parsing, errors naming the setting. */
class KubernetesSettingsTest {

    @Test
    void theLocalRuntimeIsTheDefault() {
        ServerConfig c = ServerConfig.builder(Path.of("/tmp/x")).environment(Map.of()).build();
        assertThat(c.kubernetes().enabled()).isFalse();
        assertThat(c.kubernetes().namespaces()).isEqualTo(KubernetesSettings.NamespaceMode.INSTALLATION);
        assertThat(c.kubernetes().namespace()).isEqualTo("slipway-apps");
        assertThat(ServerConfig.builder(Path.of("/tmp/x")).build().kubernetes()).isEqualTo(KubernetesSettings.LOCAL);
    }

    @Test
    void theEnvironmentAndTheFlagsTurnItOn() {
        ServerConfig c = ServerConfig.builder(Path.of("/tmp/x")).environment(Map.of("SLIPWAY_RUNTIME", "kubernetes",
                "SLIPWAY_KUBERNETES_NAMESPACES", "account", "SLIPWAY_KUBERNETES_NAMESPACE", "apps",
                "SLIPWAY_KUBERNETES_CLUSTER_CIDRS", "10.96.0.0/12, 10.244.0.0/16")).build();
        assertThat(c.kubernetes().enabled()).isTrue();
        assertThat(c.kubernetes().namespaces()).isEqualTo(KubernetesSettings.NamespaceMode.ACCOUNT);
        assertThat(c.kubernetes().namespace()).isEqualTo("apps");
        assertThat(c.kubernetes().clusterCidrs()).containsExactly("10.96.0.0/12", "10.244.0.0/16");
        ServerConfig flags = ServerConfig.builder(Path.of("/tmp/x")).environment(Map.of("SLIPWAY_RUNTIME", "kubernetes"))
                .runtimeKind("local").kubeconfig("/etc/kube.yaml").build();
        assertThat(flags.kubernetes().enabled()).isFalse();
        assertThat(flags.kubernetes().kubeconfig()).isEqualTo("/etc/kube.yaml");
        assertThat(ServerConfig.builder(Path.of("/tmp/x")).runtimeKind("kubernetes").build().kubernetes().enabled()).isTrue();
    }

    @Test
    void badValuesNameTheirSetting() {
        assertThatThrownBy(() -> KubernetesSettings.parseRuntime("docker")).hasMessageContaining("--runtime must be local or kubernetes");
        for (var bad : List.of(
                Map.of("SLIPWAY_KUBERNETES_NAMESPACES", "cluster"),
                Map.of("SLIPWAY_KUBERNETES_NAMESPACE", "Bad_Name"),
                Map.of("SLIPWAY_KUBERNETES_ROUTER_NAMESPACE", "-x"),
                Map.of("SLIPWAY_KUBERNETES_CLUSTER_CIDRS", "10.0.0.0"))) {
            String name = bad.keySet().iterator().next();
            assertThatThrownBy(() -> KubernetesSettings.fromEnv(Env.of(bad))).as(name).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(name);
        }
    }

    @Test
    void namesAreDnsLabelsOfTheIds() {
        assertThat(Names.deployment("dep_01ABC")).isEqualTo("d-dep-01abc");
        assertThat(Names.secret("dep_01ABC")).isEqualTo("d-dep-01abc-env");
        assertThat(Names.production("prj_X1")).isEqualTo("p-prj-x1");
        assertThat(Names.selectorString("dep_1")).isEqualTo("app.kubernetes.io/managed-by=slipway,slipway.dev/deployment=dep_1");
    }
}
