package dev.slipway.tls;

import dev.slipway.config.ServerConfig;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The ACME settings come from the environment through ServerConfig.Builder; bad values name their variable. */
class TlsSettingsTest {
    @Test
    void defaultsAreOffWithLetsEncryptAndAThirtyDayWindow() {
        TlsSettings tls = ServerConfig.builder(Path.of("/tmp/x")).environment(Map.of()).build().tls();
        assertThat(tls.enabled()).isFalse();
        assertThat(tls.directoryUrl()).isEqualTo("https://acme-v02.api.letsencrypt.org/directory");
        assertThat(tls.renewBefore()).isEqualTo(Duration.ofDays(30));
        assertThat(tls.email()).isNull();
        assertThat(tls.challenge()).isEqualTo(TlsSettings.HTTP_01);
    }

    @Test
    void theEnvironmentSetsTheAcmeServerAndTimings() {
        TlsSettings tls = ServerConfig.builder(Path.of("/tmp/x")).environment(Map.of(
                "SLIPWAY_ACME_DIRECTORY_URL", "https://127.0.0.1:14000/dir", "SLIPWAY_ACME_EMAIL", "ops@example.com",
                "SLIPWAY_ACME_CA_PEM", "/etc/pebble.pem", "SLIPWAY_ACME_RENEW_BEFORE", "P10D",
                "SLIPWAY_ACME_RETRY_MIN", "30", "SLIPWAY_ACME_RETRY_MAX", "PT2H", "SLIPWAY_ACME_CHECK_INTERVAL", "500ms",
                "SLIPWAY_ACME_CHALLENGE", "TLS-ALPN-01"))
                .appsHttpsPort(8443).build().tls();
        assertThat(tls.httpsPort()).isEqualTo(8443);
        assertThat(tls.directoryUrl()).isEqualTo("https://127.0.0.1:14000/dir");
        assertThat(tls.email()).isEqualTo("ops@example.com");
        assertThat(tls.caPem()).isEqualTo(Path.of("/etc/pebble.pem"));
        assertThat(tls.renewBefore()).isEqualTo(Duration.ofDays(10));
        assertThat(tls.retryMin()).isEqualTo(Duration.ofSeconds(30));
        assertThat(tls.retryMax()).isEqualTo(Duration.ofHours(2));
        assertThat(tls.checkEvery()).isEqualTo(Duration.ofMillis(500));
        assertThat(tls.challenge()).isEqualTo(TlsSettings.TLS_ALPN_01);
    }

    @Test
    void badValuesNameTheirVariable() {
        assertThatThrownBy(() -> ServerConfig.builder(Path.of("/tmp/x")).environment(Map.of("SLIPWAY_ACME_RENEW_BEFORE", "-5")))
                .hasMessageContaining("SLIPWAY_ACME_RENEW_BEFORE");
        assertThatThrownBy(() -> ServerConfig.builder(Path.of("/tmp/x")).environment(Map.of("SLIPWAY_ACME_DIRECTORY_URL", "file:///etc/passwd")))
                .hasMessageContaining("SLIPWAY_ACME_DIRECTORY_URL");
        assertThatThrownBy(() -> ServerConfig.builder(Path.of("/tmp/x")).environment(Map.of("SLIPWAY_ACME_CHALLENGE", "dns-01")))
                .hasMessageContaining("SLIPWAY_ACME_CHALLENGE").hasMessageContaining("dns-01");
        assertThatThrownBy(() -> ServerConfig.builder(Path.of("/tmp/x")).appsHttpsPort(70000).build())
                .hasMessageContaining("HTTPS port");
    }
}
