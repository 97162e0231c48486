package dev.slipway.net;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EgressAllowTest {

    @Test
    void rangesAndSingleAddressesOfBothFamiliesAreAllowedAndNothingElse() throws Exception {
        EgressAllow allow = EgressAllow.parse(" 10.1.2.3, 192.168.0.0/16 ,fd00:ec2::/32");
        assertThat(allow.allows(InetAddress.getByName("10.1.2.3"))).isTrue();
        assertThat(allow.allows(InetAddress.getByName("10.1.2.4"))).isFalse();
        assertThat(allow.allows(InetAddress.getByName("192.168.77.1"))).isTrue();
        assertThat(allow.allows(InetAddress.getByName("192.169.0.1"))).isFalse();
        assertThat(allow.allows(InetAddress.getByName("fd00:ec2::254"))).isTrue();
        assertThat(allow.allows(InetAddress.getByName("fd00:ec3::254"))).isFalse();
        assertThat(allow.toString()).isEqualTo("10.1.2.3/32,192.168.0.0/16,fd00:ec2:0:0:0:0:0:0/32");
    }

    @Test
    void aRangeIsMaskedToItsPrefix() {
        assertThat(Cidr.parse("10.9.8.7/8").toString()).isEqualTo("10.0.0.0/8");
        assertThat(Cidr.parse("10.9.8.7/8").family()).isEqualTo("ip");
        assertThat(Cidr.parse("::1").family()).isEqualTo("ip6");
    }

    @Test
    void badEntriesNameTheVariableAndHostNamesAreNeverResolved() {
        assertThatThrownBy(() -> EgressAllow.parse("db.internal")).hasMessageContaining("SLIPWAY_EGRESS_ALLOW")
                .hasMessageContaining("db.internal");
        assertThatThrownBy(() -> EgressAllow.parse("10.0.0.0/33")).hasMessageContaining("prefix length");
        assertThatThrownBy(() -> EgressAllow.parse("10.0.0/8")).hasMessageContaining("not an IP address");
        assertThat(EgressAllow.parse(" ")).isEqualTo(EgressAllow.NONE);
    }
}
