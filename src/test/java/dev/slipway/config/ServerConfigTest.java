package dev.slipway.config;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ServerConfigTest {
    private static final Path DIR = Path.of("/tmp/slipway-config-test");

    @Test
    void theEnvironmentIsReadOnlyByTheBuilderAndWhatIsSetAfterItWins() {
        ServerConfig c = ServerConfig.builder(DIR).environment(Map.of("SLIPWAY_SECRET_KEY", "a2V5",
                        "SLIPWAY_BUILD_TIMEOUT", "90", "SLIPWAY_HEALTH_TIMEOUT_SECONDS", "7",
                        "SLIPWAY_SANDBOX_WARM_NETWORKS", "3", "SLIPWAY_WEBHOOKS_RETRY_SCHEDULE", "1,2",
                        "SLIPWAY_TOOLCHAIN_REGISTRY", "http://127.0.0.1:4873/"))
                .regions(List.of("eu-west-1")).secretKey("b3RoZXI=").build();
        assertThat(c.store().secretKey()).isEqualTo("b3RoZXI=");
        assertThat(c.build().commandTimeout()).isEqualTo(Duration.ofSeconds(90));
        assertThat(c.build().toolchainRegistry()).hasToString("http://127.0.0.1:4873/");
        assertThat(c.runtime().healthTimeout()).isEqualTo(Duration.ofSeconds(7));
        assertThat(c.runtime().regions()).containsExactly("eu-west-1");
        assertThat(c.isolation().warmNetworks()).isEqualTo(3);
        assertThat(c.webhooks().retries()).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2));
    }

    @Test
    void withoutTheEnvironmentItIsTheEmbeddedDefaults() {
        ServerConfig c = ServerConfig.builder(DIR).build();
        assertThat(c.listeners().apiPort()).isEqualTo(8080);
        assertThat(c.listeners().appsPort()).isEqualTo(8081);
        assertThat(c.store().databaseUrl()).isNull();
        assertThat(c.store().createDefaultAccount()).isTrue();
        assertThat(c.isolation().warmNetworks()).isEqualTo(IsolationSettings.DEFAULT_WARM_NETWORKS);
        assertThat(c.runtime().healthTimeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(c.build().toolchainRegistry()).hasToString("https://registry.npmjs.org/");
        assertThat(c.toBuilder().ports(1, 2).build()).usingRecursiveComparison()
                .isEqualTo(ServerConfig.builder(DIR).ports(1, 2).build());
    }

    @Test
    void aBadValueNamesItsVariable() {
        assertThatThrownBy(() -> ServerConfig.builder(DIR).environment(Map.of("SLIPWAY_SANDBOX_WARM_NETWORKS", "many")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("SLIPWAY_SANDBOX_WARM_NETWORKS");
        assertThatThrownBy(() -> ServerConfig.builder(DIR).environment(Map.of("SLIPWAY_KEEP_ARTIFACTS", "0")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("SLIPWAY_KEEP_ARTIFACTS");
        assertThatThrownBy(() -> ServerConfig.builder(DIR).environment(Map.of("SLIPWAY_TOOLCHAIN_REGISTRY", "registry.local")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("SLIPWAY_TOOLCHAIN_REGISTRY");
        assertThatThrownBy(() -> ServerConfig.builder(DIR).buildSlots(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("build slots");
    }

    @Test
    void itNeverPrintsTheSecretKeyOrAdminUrls() {
        String shown = ServerConfig.builder(DIR).secretKey("c2VjcmV0")
                .databaseAdmins("postgres://admin:pw@db/x", "mysql://root:pw@db").build().toString();
        assertThat(shown).doesNotContain("c2VjcmV0").doesNotContain("pw@");
    }
}
