package dev.slipway.auth;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** The Authorization header's shape: {@code Bearer } and a secret of 10 to 200 letters, digits or underscores. */
class AuthenticatorTest {
    /** The rule as a regular expression: the reading must agree with it on every header. */
    private static final Pattern RULE = Pattern.compile("^Bearer ([A-Za-z0-9_]{10,200})$");

    private static String byRule(String header) {
        Matcher m = RULE.matcher(header);
        return m.matches() ? m.group(1) : null;
    }

    @Test
    void aSecretIsReadOnlyFromAWellFormedHeader() {
        String ten = "sk_live_12";
        assertThat(Authenticator.secret("Bearer " + ten)).isEqualTo(ten);
        assertThat(Authenticator.secret("Bearer " + "a".repeat(200))).isEqualTo("a".repeat(200));
        for (String bad : List.of("Bearer " + "a".repeat(9), "Bearer " + "a".repeat(201), "bearer " + ten, "Basic " + ten,
                "Bearer  " + ten, "Bearer " + ten + " ", "Bearer sk-live-123", "Bearer sk_lïve_123", "Bearer sk_live_12\n",
                "Bearer " + ten + "\u0000", "Bearer", "Bearer ", "", "Token " + ten)) {
            assertThat(Authenticator.secret(bad)).as(bad).isNull();
        }
    }

    @Test
    void itAgreesWithTheRuleOnHostileAndRandomHeaders() {
        Random random = new Random(42);
        String alphabet = "aZ09_ -.:/+=\t\n\u00e9\u0130\u212a\uff21";
        List<String> headers = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            StringBuilder b = new StringBuilder(random.nextInt(4) == 0 ? "" : "Bearer ");
            int length = random.nextInt(215);
            boolean clean = random.nextBoolean();
            for (int j = 0; j < length; j++) {
                b.append(!clean && random.nextInt(8) == 0 ? alphabet.charAt(random.nextInt(alphabet.length()))
                        : "abcXYZ019_".charAt(random.nextInt(10)));
            }
            headers.add(b.toString());
        }
        int accepted = 0;
        for (String h : headers) {
            assertThat(Authenticator.secret(h)).as(h).isEqualTo(byRule(h));
            if (byRule(h) != null) accepted++;
        }
        assertThat(accepted).as("the random headers include well-formed ones").isGreaterThan(1_000);
    }
}
