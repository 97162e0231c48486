package dev.slipway.logs;

import org.junit.jupiter.api.Test;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A secret leaks in no common form: each is what an app that wanted to smuggle it out would print. */
class MaskerTest {
    private static final String SECRET = "p@ss w\"rd\\42/?+=&é";
    private final Masker masker = new Masker(List.of(SECRET, "short"));

    private void masked(String form) {
        String line = "leak: [" + form + "] end";
        assertThat(masker.mask(line)).as(form).isEqualTo("leak: [****] end");
    }

    @Test
    void theValueInAnyCase() {
        masked(SECRET);
        masked(SECRET.toUpperCase());
        masked(SECRET.toLowerCase());
    }

    @Test
    void itsEncodings() {
        byte[] b = SECRET.getBytes(StandardCharsets.UTF_8);
        masked(Base64.getEncoder().encodeToString(b));
        masked(Base64.getEncoder().withoutPadding().encodeToString(b));
        masked(Base64.getUrlEncoder().encodeToString(b));
        masked(Base64.getUrlEncoder().withoutPadding().encodeToString(b));
        masked(URLEncoder.encode(SECRET, StandardCharsets.UTF_8));
        masked(URLEncoder.encode(SECRET, StandardCharsets.UTF_8).replace("+", "%20"));
        masked("p@ss w\\\"rd\\\\42/?+=&é"); // JSON-escaped
        masked(HexFormat.of().formatHex(b));
        masked(HexFormat.of().withUpperCase().formatHex(b));
    }

    @Test
    void aValueWithLineBreaksIsMaskedOnEachOfItsLines() {
        Masker m = new Masker(List.of("-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEF\n-----END KEY-----"));
        assertThat(m.mask("-----BEGIN KEY-----")).isEqualTo("****");
        assertThat(m.mask("MIIEvQIBADANBgkqhkiG9w0BAQEF")).isEqualTo("****");
        assertThat(m.mask("key: -----END KEY----- done")).isEqualTo("key: **** done");
    }

    @Test
    void aLongLineIsCutWhereNoSecretIsSplit() {
        Masker m = new Masker(List.of("0123456789abcdef"));
        String line = "x".repeat(100) + "0123456789abcdef";
        // cutting at the end would be safe; cutting where the secret could still begin is not: it goes on
        int cut = m.safeCut(line.substring(0, 110)); // the buffer ends inside the secret
        assertThat(cut).isLessThanOrEqualTo(100);
        // the longest form of the secret is its hex (32 characters): the last 31 could be its start
        assertThat(m.safeCut("x".repeat(200))).isEqualTo(200 - 31);
        assertThat(new Masker(List.of()).safeCut("abc")).isEqualTo(3);
    }

    @Test
    void aSecretSplitOverTwoLinesIsMaskedInBoth() {
        Masker m = new Masker(List.of("sk-live-123456"));
        for (int at = 1; at < "sk-live-123456".length(); at++) {
            String[] pair = m.maskAcross("token: " + "sk-live-123456".substring(0, at), "sk-live-123456".substring(at) + " ok");
            assertThat(pair).as("split at " + at).containsExactly("token: ****", "**** ok");
        }
        assertThat(m.maskAcross("nothing here", "nor here")).containsExactly("nothing here", "nor here");
    }

    @Test
    void shortValuesAreNotMasked() {
        assertThat(masker.mask("a short line")).isEqualTo("a short line");
        assertThat(new Masker(List.of("12345")).mask("port 12345")).isEqualTo("port 12345");
        assertThat(new Masker(List.of()).mask("anything")).isEqualTo("anything");
    }

    @Test
    void aSecretContainingAnotherIsMaskedWhole() {
        Masker m = new Masker(List.of("abcdef", "abcdefghij"));
        assertThat(m.mask("x abcdefghij y abcdef")).isEqualTo("x **** y ****");
    }
}
