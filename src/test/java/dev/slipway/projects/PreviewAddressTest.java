package dev.slipway.projects;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

class PreviewAddressTest {
    /** A DNS label: letters, digits and '-', not at either end, at most 63. */
    private static final Pattern DNS_LABEL = Pattern.compile("^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$");

    @Test
    void aPlainBranchKeepsItsNameAndAnyOtherGetsAHashSoNoTwoShareAnAddress() {
        assertThat(PreviewAddress.label("web", "main")).isEqualTo("web-git-main");
        assertThat(PreviewAddress.label("web", "fix-42")).isEqualTo("web-git-fix-42");
        String slash = PreviewAddress.label("web", "feature/login");
        assertThat(slash).matches("web-git-feature-login-[0-9a-f]{6}");
        assertThat(PreviewAddress.label("web", "feature-login")).isEqualTo("web-git-feature-login").isNotEqualTo(slash);
        assertThat(PreviewAddress.label("web", "Feature/Login")).isNotEqualTo(slash);
        assertThat(PreviewAddress.suffix("web", "main")).isEqualTo("git-main");
    }

    @Test
    void hostileBranchNamesGiveSafeDistinctAddresses() {
        List<String> hostile = List.of("../../x", "$(id)", "`id`", "a".repeat(300), "m\u0430in" /* Cyrillic a */,
                "\u202Eevil", "x.evil.com", "--", "\u0432\u0435\u0442\u043a\u0430", "UPPER", "a_b", ".hidden");
        for (String branch : hostile) {
            String label = PreviewAddress.label("shop-frontend-with-a-long-name-of-forty", branch);
            assertThat(label).as(branch).matches(DNS_LABEL).doesNotContain(".");
            assertThat(label.length()).as(branch).isLessThanOrEqualTo(63);
        }
        assertThat(PreviewAddress.label("web", "m\u0430in")).as("a lookalike of main").isNotEqualTo("web-git-main");
        assertThat(PreviewAddress.label("web", "a".repeat(300))).isNotEqualTo(PreviewAddress.label("web", "a".repeat(299)));
        assertThat(hostile.stream().map(b -> PreviewAddress.label("web", b)).distinct().count()).isEqualTo(hostile.size());
    }

    @Test
    void aLabelNamesEveryProjectBeforeEachInfix() {
        assertThat(PreviewAddress.projectsOf("web-git-main")).containsExactly("web");
        assertThat(PreviewAddress.projectsOf("my-git-tool-git-x")).containsExactly("my", "my-git-tool");
        assertThat(PreviewAddress.projectsOf("web")).isEmpty();
    }
}
