package dev.slipway.client.api;

import dev.slipway.client.context.UsageException;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** API addresses as SLIPWAY_API_URL gives them. */
class ParsingTest {
    @Test
    void apiAddresses() {
        assertThat(ClientConfig.base("http://127.0.0.1:8080").toString()).isEqualTo("http://127.0.0.1:8080/v1");
        assertThat(ClientConfig.base("http://127.0.0.1:8080/").toString()).isEqualTo("http://127.0.0.1:8080/v1");
        assertThat(ClientConfig.base("https://deploy.example.com/slipway/v1/").toString()).isEqualTo("https://deploy.example.com/slipway/v1");
        for (String bad : List.of("127.0.0.1:8080", "ftp://x", "http://", "http://x/?a=b")) {
            assertThatThrownBy(() -> ClientConfig.base(bad)).as(bad).isInstanceOf(UsageException.class);
        }
    }
}
