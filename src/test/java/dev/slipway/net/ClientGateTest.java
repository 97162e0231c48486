package dev.slipway.net;

import dev.slipway.core.Env;
import java.util.Map;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** How the gate counts connections: per IPv4 address, per IPv6 /64, a trusted proxy's only in the total. */
class ClientGateTest {
    static final ClientLimits LIMITS = ClientLimits.DEFAULTS.withConnections(2, 5);

    static InetAddress ip(String literal) throws Exception {
        return InetAddress.getByName(literal);
    }

    @Test
    void anIpv6HostIsCountedByItsSlash64AndAnIpv4HostByItsAddress() throws Exception {
        ClientGate gate = ClientGate.forApps(LIMITS, TrustedProxies.NONE);
        assertThat(gate.key(ip("2001:db8:1:2::1"))).isEqualTo(gate.key(ip("2001:db8:1:2:ffff:ffff:ffff:ffff")));
        assertThat(gate.key(ip("2001:db8:1:3::1"))).isNotEqualTo(gate.key(ip("2001:db8:1:2::1")));
        assertThat(gate.key(ip("198.51.100.7"))).isNotEqualTo(gate.key(ip("198.51.100.8")));

        long home = gate.key(ip("2001:db8:1:2::1"));
        assertThat(gate.open(home)).isTrue();
        assertThat(gate.open(gate.key(ip("2001:db8:1:2::99")))).isTrue();
        assertThat(gate.open(gate.key(ip("2001:db8:1:2::100")))).as("a third from the same /64").isFalse();
        assertThat(gate.open(gate.key(ip("2001:db8:1:3::1")))).as("the next /64").isTrue();
        gate.close(home);
        assertThat(gate.open(home)).as("once one of its own closed").isTrue();
        assertThat(gate.open()).isEqualTo(3);
    }

    @Test
    void theTotalHoldsWhateverTheAddresses() throws Exception {
        ClientGate gate = ClientGate.forApps(LIMITS, TrustedProxies.parse("10.0.0.0/8"));
        long proxy = gate.key(ip("10.1.2.3"));
        assertThat(proxy).isEqualTo(ClientGate.UNKEYED);
        for (int i = 0; i < 3; i++) assertThat(gate.open(proxy)).as("the proxy is not one client").isTrue();
        assertThat(gate.open(gate.key(ip("198.51.100.7")))).isTrue();
        assertThat(gate.open(gate.key(ip("198.51.100.8")))).isTrue();
        assertThat(gate.open(gate.key(ip("198.51.100.9")))).as("the sixth, over the total").isFalse();
        assertThat(gate.open(proxy)).isFalse();
        gate.close(proxy);
        assertThat(gate.open(gate.key(ip("198.51.100.9")))).isTrue();
        assertThat(gate.open()).isEqualTo(5);
    }

    @Test
    void theLimitsAreReadFromTheEnvironmentAndABadValueIsNamed() {
        ClientLimits l = ClientLimits.fromEnv(Env.of(Map.of("SLIPWAY_CLIENT_HEAD_TIMEOUT", "1500ms",
                "SLIPWAY_CLIENT_BODY_MIN_RATE", "0", "SLIPWAY_MAX_CONNECTIONS_PER_CLIENT", "8", "SLIPWAY_MAX_CONNECTIONS", "100")));
        assertThat(l).isEqualTo(new ClientLimits(Duration.ofMillis(1500), 0, 8, 100));
        assertThat(ClientLimits.fromEnv(Env.of(Map.of()))).isEqualTo(ClientLimits.DEFAULTS);
        assertThatThrownBy(() -> ClientLimits.fromEnv(Env.of(Map.of("SLIPWAY_MAX_CONNECTIONS_PER_CLIENT", "0"))))
                .hasMessageContaining("SLIPWAY_MAX_CONNECTIONS_PER_CLIENT");
        assertThatThrownBy(() -> ClientLimits.fromEnv(Env.of(Map.of("SLIPWAY_CLIENT_HEAD_TIMEOUT", "soon"))))
                .hasMessageContaining("SLIPWAY_CLIENT_HEAD_TIMEOUT");
        assertThatThrownBy(() -> ClientLimits.fromEnv(Env.of(Map.of("SLIPWAY_MAX_CONNECTIONS", "4"))))
                .hasMessageContaining("SLIPWAY_MAX_CONNECTIONS");
    }

    @Test
    void aTrustedProxyNamesItsClientAsNginxsRealIpDoes() {
        TrustedProxies proxies = TrustedProxies.parse("127.0.0.9/32, 10.0.0.0/8");
        assertThat(proxies.client("6.6.6.6, 203.0.113.7", "127.0.0.9")).isEqualTo("203.0.113.7");
        assertThat(proxies.client("203.0.113.7, 10.1.1.1", "127.0.0.9")).as("past proxies of its own").isEqualTo("203.0.113.7");
        assertThat(proxies.client("10.1.1.1, 10.2.2.2", "127.0.0.9")).as("all trusted: the first").isEqualTo("10.1.1.1");
        assertThat(proxies.client("unknown, 10.2.2.2", "127.0.0.9")).isEqualTo("unknown");
        assertThat(proxies.client(null, "127.0.0.9")).isEqualTo("127.0.0.9");
        assertThatThrownBy(() -> TrustedProxies.parse("10.0.0.0/8,proxy.example")).hasMessageContaining("SLIPWAY_TRUSTED_PROXIES");
    }
}
