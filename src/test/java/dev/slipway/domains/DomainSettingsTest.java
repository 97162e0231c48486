package dev.slipway.domains;

import dev.slipway.config.ServerConfig;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The domain settings as ServerConfig.Builder reads them from the environment; a bad value names its variable. */
class DomainSettingsTest {
    private static DomainSettings read(Map<String, String> env) {
        return ServerConfig.builder(Path.of("/tmp/unused")).environment(env).build().domains();
    }

    @Test
    void defaultsAndEveryVariable() {
        assertThat(read(Map.of())).isEqualTo(DomainSettings.DEFAULTS);
        assertThat(DomainSettings.DEFAULTS.proof()).isTrue();
        assertThat(DomainSettings.DEFAULTS.dnsServers()).as("the system's resolver").isEmpty();
        DomainSettings s = read(Map.of("SLIPWAY_DOMAIN_VERIFICATION", " OFF ", "SLIPWAY_DNS_SERVERS", "127.0.0.1:5353, [::1]:53,10.0.0.2",
                "SLIPWAY_DNS_TIMEOUT_SECONDS", "2", "SLIPWAY_DOMAIN_CHECK_SECONDS", "30"));
        assertThat(s.proof()).isFalse();
        assertThat(s.dnsServers()).containsExactly(new InetSocketAddress("127.0.0.1", 5353), new InetSocketAddress("::1", 53),
                new InetSocketAddress("10.0.0.2", 53));
        assertThat(s.dnsTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(s.checkInterval()).isEqualTo(Duration.ofSeconds(30));
        // the flag wins over the environment
        assertThat(ServerConfig.builder(Path.of("/tmp/unused")).environment(Map.of("SLIPWAY_DOMAIN_VERIFICATION", "off"))
                .domainProof(true).build().domains().proof()).isTrue();
    }

    @Test
    void badValuesNameTheirVariable() {
        for (var bad : List.of(Map.of("SLIPWAY_DOMAIN_VERIFICATION", "maybe"), Map.of("SLIPWAY_DNS_SERVERS", "127.0.0.1:99999"),
                Map.of("SLIPWAY_DNS_SERVERS", " , "), Map.of("SLIPWAY_DNS_TIMEOUT_SECONDS", "0"),
                Map.of("SLIPWAY_DNS_TIMEOUT_SECONDS", "600"), Map.of("SLIPWAY_DOMAIN_CHECK_SECONDS", "soon"))) {
            String variable = bad.keySet().iterator().next();
            assertThatThrownBy(() -> read(bad)).as(bad.toString()).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(variable);
        }
    }
}
