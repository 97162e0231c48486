package dev.slipway.isolation;

import dev.slipway.core.Env;
import dev.slipway.net.Cidr;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The cells' network: a private IPv4 range of at least 16 addresses, named in the error when it is not. */
class SandboxSettingsTest {
    @Test
    void theCellsNetworkDefaultsToAPrivateRangeAndTakesAnother() {
        assertThat(SandboxSettings.fromEnv(Env.of(Map.of())).cellNetwork()).isEqualTo(Cidr.parse("10.203.0.0/16"));
        assertThat(SandboxSettings.fromEnv(Env.of(Map.of("SLIPWAY_SANDBOX_CELL_NET", "192.168.240.0/20"))).cellNetwork())
                .isEqualTo(Cidr.parse("192.168.240.0/20"));
    }

    @Test
    void aRangeThatIsNotPrivateIPv4OrTooSmallIsRefusedByName() {
        for (String bad : new String[]{"100.64.0.0/16", "8.8.8.0/24", "10.0.0.0/7", "fd00::/64", "10.1.2.0/29", "ten/8"}) {
            assertThatThrownBy(() -> SandboxSettings.fromEnv(Env.of(Map.of("SLIPWAY_SANDBOX_CELL_NET", bad))))
                    .as(bad).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("SLIPWAY_SANDBOX_CELL_NET: ");
        }
    }

    @Test
    void eachCellTakesASlashThirtyOfTheRange() {
        Veths veths = new Veths(null, Cidr.parse("10.203.0.0/16"));
        assertThat(veths.address(0, 1)).isEqualTo("10.203.0.1");
        assertThat(veths.address(0, 2)).isEqualTo("10.203.0.2");
        assertThat(veths.address(64, 2)).isEqualTo("10.203.1.2");
        assertThat(veths.address(16383, 1)).isEqualTo("10.203.255.253");
    }
}
