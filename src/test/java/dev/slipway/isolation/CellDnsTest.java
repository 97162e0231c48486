package dev.slipway.isolation;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** What pasta forwards to and what a cell's resolv.conf says, from the host's resolv.conf. */
class CellDnsTest {

    @Test
    void systemdResolvedsStubIsForwardedToAndItsOptionsKept() {
        CellDns dns = CellDns.parse("""
                # This is /run/systemd/resolve/stub-resolv.conf managed by man:systemd-resolved(8).
                nameserver 127.0.0.53
                options edns0 trust-ad
                search lan
                """);
        assertThat(dns.upstreamConf()).isEqualTo("nameserver 127.0.0.53\n");
        assertThat(dns.cellConf()).contains("nameserver 169.254.0.53\n", "options edns0 trust-ad\n", "search lan\n")
                .doesNotContain("127.0.0.53").doesNotContain("100::53");
    }

    @Test
    void theFirstResolverOfEachFamilyAndAScopedIpv6One() {
        CellDns dns = CellDns.parse("nameserver 10.0.0.2\nnameserver 10.0.0.3\nnameserver fe80::1%eth0\nnameserver dns.example\n");
        assertThat(dns.upstreamConf()).isEqualTo("nameserver 10.0.0.2\nnameserver fe80:0:0:0:0:0:0:1\n");
        assertThat(dns.cellConf()).contains("nameserver 169.254.0.53\n", "nameserver 100:0:0:0:0:0:0:53\n");
    }

    @Test
    void noNameserverMeansTheLocalOneAsForGlibc() {
        assertThat(CellDns.parse("search example.com\n").upstreamConf()).isEqualTo("nameserver 127.0.0.1\n");
    }
}
