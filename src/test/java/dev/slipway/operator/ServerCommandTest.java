package dev.slipway.operator;

import dev.slipway.config.ServerConfig;
import dev.slipway.core.Env;
import dev.slipway.isolation.IsolationMode;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The server command's configuration: the environment, read once by the builder, and the flags given over it. */
class ServerCommandTest {
    private static final Map<String, String> ENV = Map.of("SLIPWAY_DATA_DIR", "/tmp/slipway-env-dir",
            "SLIPWAY_HOST", "0.0.0.0", "SLIPWAY_API_PORT", "9090", "SLIPWAY_APPS_PORT", "9091",
            "SLIPWAY_REGIONS", "eu-west-1, us-east-1", "SLIPWAY_BUILD_SLOTS", "4", "SLIPWAY_ISOLATION", "none",
            "SLIPWAY_WEBHOOKS_ALLOW_PRIVATE", "true", "SLIPWAY_POSTGRES_ADMIN_URL", "postgres://a:b@db:5432/postgres");

    private static ServerConfig config(Map<String, String> env, String... flags) {
        ServerCommand command = new ServerCommand();
        new CommandLine(command).parseArgs(flags);
        return command.config(Env.of(env));
    }

    @Test
    void withoutFlagsItIsTheEnvironment() {
        ServerConfig c = config(ENV);
        assertThat(c.dataDir()).isEqualTo(Path.of("/tmp/slipway-env-dir"));
        assertThat(c.listeners().host()).isEqualTo("0.0.0.0");
        assertThat(c.listeners().apiPort()).isEqualTo(9090);
        assertThat(c.listeners().appsPort()).isEqualTo(9091);
        assertThat(c.deployments().regions()).containsExactly("eu-west-1", "us-east-1");
        assertThat(c.runtime().regions()).containsExactly("eu-west-1", "us-east-1");
        assertThat(c.deployments().buildSlots()).isEqualTo(4);
        assertThat(c.isolation().mode()).isEqualTo(IsolationMode.NONE);
        assertThat(c.webhooks().allowPrivate()).isTrue();
        assertThat(c.databaseAdmins().postgresUrl()).isEqualTo("postgres://a:b@db:5432/postgres");
    }

    @Test
    void givenFlagsWinAndTheRestIsTheEnvironment() {
        Map<String, String> env = new HashMap<>(ENV);
        env.put("SLIPWAY_APPS_TLS_CERT", "/etc/slipway/cert.pem");
        ServerConfig c = config(env, "--data-dir", "/tmp/flag-dir", "--api-port", "7070", "--regions", "ap-south-1",
                "--isolation", "auto", "--webhooks-allow-private=false", "--apps-tls-key", "/etc/slipway/key.pem");
        assertThat(c.dataDir()).isEqualTo(Path.of("/tmp/flag-dir"));
        assertThat(c.listeners().apiPort()).isEqualTo(7070);
        assertThat(c.listeners().appsPort()).isEqualTo(9091);
        assertThat(c.listeners().host()).isEqualTo("0.0.0.0");
        assertThat(c.deployments().regions()).containsExactly("ap-south-1");
        assertThat(c.isolation().mode()).isEqualTo(IsolationMode.AUTO);
        assertThat(c.webhooks().allowPrivate()).isFalse();
        assertThat(c.tls().wildcardCert()).isEqualTo(Path.of("/etc/slipway/cert.pem"));
        assertThat(c.tls().wildcardKey()).isEqualTo(Path.of("/etc/slipway/key.pem"));
    }

    @Test
    void withNeitherItIsTheDefaults() {
        ServerConfig c = config(Map.of());
        assertThat(c.dataDir()).isEqualTo(Path.of(".slipway"));
        assertThat(c.listeners().host()).isEqualTo("127.0.0.1");
        assertThat(c.listeners().apiPort()).isEqualTo(8080);
        assertThat(c.listeners().appsPort()).isEqualTo(8081);
        assertThat(c.deployments().uploadLimitBytes()).isEqualTo(104_857_600L);
        assertThat(c.store().poolSize()).isEqualTo(10);
    }

    @Test
    void aBadValueNamesItsVariableOrFlag() {
        assertThatThrownBy(() -> config(Map.of("SLIPWAY_API_PORT", "http"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("SLIPWAY_API_PORT must be a whole number from 0 to 65535, got 'http'");
        assertThatThrownBy(() -> config(Map.of("SLIPWAY_BUILD_SLOTS", "99"))).hasMessageContaining("SLIPWAY_BUILD_SLOTS");
        assertThatThrownBy(() -> config(Map.of("SLIPWAY_ISOLATION", "maybe"))).hasMessageContaining("SLIPWAY_ISOLATION");
        assertThatThrownBy(() -> config(Map.of(), "--build-slots", "0")).hasMessageContaining("--build-slots");
        assertThatThrownBy(() -> config(Map.of(), "--isolation", "maybe")).hasMessageContaining("--isolation");
    }
}
