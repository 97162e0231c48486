package dev.slipway.domains;

import dev.slipway.testing.DnsServer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The DNS check against a DNS server of the test's on loopback: each outcome and its reason. */
class DomainProofTest {
    private static final String TOKEN = "slipway-verify=0123456789abcdef0123456789abcdef";

    private static DomainProof proof(DnsServer dns, Duration timeout) {
        return new DomainProof(DomainSettings.DEFAULTS.withDnsServers(List.of(dns.address())).withDnsTimeout(timeout));
    }

    @Test
    void theTokenAmongOtherRecordsVerifies() {
        try (DnsServer dns = DnsServer.start()) {
            dns.txt("_slipway-challenge.shop.example.test", "google-site-verification=x", TOKEN);
            assertThat(proof(dns, Duration.ofSeconds(2)).check("shop.example.test", TOKEN))
                    .isEqualTo(new DomainProof.Outcome(true, null));
            assertThat(dns.questions()).isEqualTo(1);
        }
    }

    @Test
    void noRecordAndWrongValuesSayWhy() {
        try (DnsServer dns = DnsServer.start()) {
            DomainProof proof = proof(dns, Duration.ofSeconds(2));
            var none = proof.check("shop.example.test", TOKEN);
            assertThat(none.verified()).isFalse();
            assertThat(none.reason()).isEqualTo("no TXT record at _slipway-challenge.shop.example.test (the name does not exist)");

            // a record at the domain itself is not the proof: only the challenge name counts
            dns.txt("shop.example.test", TOKEN);
            assertThat(proof.check("shop.example.test", TOKEN).verified()).isFalse();

            // hostile record contents come back short and printable
            dns.txt("_slipway-challenge.shop.example.test", "evil\u001b[31mred" + "x".repeat(200), TOKEN + "0");
            var wrong = proof.check("shop.example.test", TOKEN);
            assertThat(wrong.verified()).isFalse();
            assertThat(wrong.reason()).startsWith("the TXT record at _slipway-challenge.shop.example.test holds \"evil")
                    .endsWith("not this project's token").doesNotContain("\u001b").hasSizeLessThan(300);
        }
    }

    @Test
    void aDeadDnsServerFailsTheCheckWithinTheTimeout() {
        try (DnsServer dead = DnsServer.silent()) {
            long started = System.nanoTime();
            var outcome = proof(dead, Duration.ofSeconds(1)).check("shop.example.test", TOKEN);
            long ms = (System.nanoTime() - started) / 1_000_000;
            assertThat(outcome.verified()).isFalse();
            assertThat(outcome.reason()).startsWith("DNS error: no answer for _slipway-challenge.shop.example.test within 1000 ms");
            assertThat(ms).as("bounded by the timeout").isLessThan(3_000);
            assertThat(dead.questions()).as("the dead server was asked").isPositive();
        }
    }
}
