package dev.slipway.net;

import java.net.UnknownHostException;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The one table of non-public ranges that the webhook guard and the sandbox's firewall both use. */
class NonPublicTest {

    @Test
    void theRangesOfTheReviewAndTheirKinds() throws Exception {
        Map<String, String> kinds = Map.ofEntries(
                Map.entry("10.1.2.3", "private"), Map.entry("172.31.255.255", "private"), Map.entry("192.168.0.1", "private"),
                Map.entry("100.100.100.200", "shared (CGNAT)"), // Alibaba's metadata
                Map.entry("169.254.169.254", "link-local"), Map.entry("127.0.0.53", "loopback"), Map.entry("0.0.0.0", "unspecified"),
                Map.entry("224.0.0.251", "multicast"), Map.entry("255.255.255.255", "reserved"), Map.entry("198.18.0.1", "benchmarking"),
                Map.entry("fd00:ec2::254", "unique-local"), // AWS's IPv6 metadata
                Map.entry("fe80::1", "link-local"), Map.entry("ff02::1", "multicast"), Map.entry("::1", "loopback"),
                Map.entry("::", "unspecified"), Map.entry("fec0::1", "site-local"), Map.entry("2001:db8::1", "documentation"),
                Map.entry("100::1", "discard-only"), Map.entry("64:ff9b:1::a", "local NAT64"),
                // IPv4 inside IPv6: mapped (IPv4 to Java), compatible, NAT64
                Map.entry("::ffff:10.0.0.1", "private"), Map.entry("::a9fe:a9fe", "link-local"), Map.entry("64:ff9b::6464:64c8", "shared (CGNAT)"));
        kinds.forEach((address, kind) -> assertThat(NonPublic.kind(address(address))).as(address).isEqualTo(kind));
        for (String pub : List.of("8.8.8.8", "93.184.215.14", "100.128.0.1", "172.32.0.1", "192.0.2.1", "2606:4700::1111",
                "64:ff9b::808:808", "::808:808")) {
            assertThat(NonPublic.kind(address(pub))).as(pub).isNull();
        }
    }

    @Test
    void theFirewallsSetsCoverEveryRangeWithoutOverlaps() {
        for (String family : List.of("ip", "ip6")) {
            List<Cidr> set = NonPublic.outermost(family);
            for (NonPublic.Range r : NonPublic.RANGES) {
                if (!r.cidr().family().equals(family)) continue;
                assertThat(set).as(r + " in the " + family + " set").anyMatch(c -> c.contains(r.cidr()));
            }
            for (Cidr a : set) {
                assertThat(set).as(a + " overlaps none").noneMatch(b -> !b.equals(a) && (b.contains(a) || a.contains(b)));
            }
        }
        assertThat(NonPublic.outermost("ip")).hasSize(11);
    }

    @Test
    void theWebhookGuardAsksTheTable() throws Exception {
        for (NonPublic.Range r : NonPublic.RANGES) {
            assertThat(AddressGuard.forbidden(r.cidr().network())).as(r.toString()).isNotNull();
        }
    }

    private static InetAddress address(String s) {
        try {
            return InetAddress.getByName(s);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(s, e);
        }
    }
}
