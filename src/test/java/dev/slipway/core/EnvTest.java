package dev.slipway.core;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EnvTest {
    private static final Setting S = Setting.env("SLIPWAY_TEST_SETTING", "`x`", "a setting of this test");

    private static Env env(String value) {
        return Env.of(Map.of(S.variable(), value));
    }

    @Test
    void text() {
        assertThat(env("  a b ").text(S, "d")).isEqualTo("a b");
        assertThat(env("   ").text(S, "d")).isEqualTo("d");
        assertThat(Env.of(Map.of()).text(S)).isEmpty();
        assertThat(env("x").isSet(S)).isTrue();
        assertThat(env(" ").isSet(S)).isFalse();
    }

    @Test
    void wholeNumbersInARange() {
        assertThat(env(" 12 ").number(S, 0, 16, 3)).isEqualTo(12);
        assertThat(env("").integer(S, 0, 16, 3)).isEqualTo(3);
        assertThatThrownBy(() -> env("17").integer(S, 0, 16, 3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("SLIPWAY_TEST_SETTING must be a whole number from 0 to 16, got '17'");
        assertThatThrownBy(() -> env("many").number(S, 1, Long.MAX_VALUE, 3))
                .hasMessage("SLIPWAY_TEST_SETTING must be a whole number of at least 1, got 'many'");
        assertThatThrownBy(() -> env("99999999999").integer(S, 1, Integer.MAX_VALUE, 3)).hasMessageContaining("SLIPWAY_TEST_SETTING");
    }

    @Test
    void positiveDurations() {
        assertThat(env("30").duration(S, Duration.ZERO)).isEqualTo(Duration.ofSeconds(30));
        assertThat(env("200ms").duration(S, Duration.ZERO)).isEqualTo(Duration.ofMillis(200));
        assertThat(env("PT5M").duration(S, Duration.ZERO)).isEqualTo(Duration.ofMinutes(5));
        assertThat(env(" ").duration(S, Duration.ofDays(1))).isEqualTo(Duration.ofDays(1));
        assertThatThrownBy(() -> env("-5").duration(S, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("SLIPWAY_TEST_SETTING").hasMessageContaining("positive duration");
    }

    @Test
    void booleans() {
        assertThat(env("true").bool(S, false)).isTrue();
        assertThat(env(" FALSE ").bool(S, true)).isFalse();
        assertThat(env("").bool(S, true)).isTrue();
        assertThatThrownBy(() -> env("yes").bool(S, false)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("SLIPWAY_TEST_SETTING must be true or false, got 'yes'");
    }

    @Test
    void commaLists() {
        assertThat(env(" a, b ,,c ").list(S, List.of())).containsExactly("a", "b", "c");
        assertThat(env(" ").list(S, List.of("d"))).containsExactly("d");
        assertThat(env(" , ").list(S, List.of("d"))).isEmpty();
    }

    @Test
    void parsedValues() {
        assertThat(env("auto").parsed(S, "auto or off", v -> v.equals("auto"), false)).isTrue();
        assertThat(env("").parsed(S, "auto or off", v -> v.equals("auto"), false)).isFalse();
        assertThatThrownBy(() -> env("soon").parsed(S, "auto or off", v -> { throw new IllegalArgumentException(v); }, false))
                .hasMessage("SLIPWAY_TEST_SETTING must be auto or off, got 'soon'");
    }
}
