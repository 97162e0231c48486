package dev.slipway.build.toolchain;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SemverTest {
    private static final List<Semver.Version> NODE = Stream.of("18.20.8", "20.9.0", "20.19.5", "22.0.0", "22.12.0",
            "22.23.3", "24.1.0", "26.10.0").map(v -> Semver.Version.parse(v).orElseThrow()).toList();

    private static String newest(String range) {
        return Semver.range(range).newest(NODE).map(Semver.Version::toString).orElse("none");
    }

    @Test
    void rangesPickTheNewestVersionInThem() {
        assertThat(newest("22")).isEqualTo("22.23.3");
        assertThat(newest("22.x")).isEqualTo("22.23.3");
        assertThat(newest("v22")).isEqualTo("22.23.3");
        assertThat(newest("^22")).isEqualTo("22.23.3");
        assertThat(newest("^22.5")).isEqualTo("22.23.3");
        assertThat(newest("~22.12")).isEqualTo("22.12.0");
        assertThat(newest("22.12.0")).isEqualTo("22.12.0");
        assertThat(newest("=22.0.0")).isEqualTo("22.0.0");
        assertThat(newest(">=18")).isEqualTo("26.10.0");
        assertThat(newest(">= 18 < 21")).isEqualTo("20.19.5");
        assertThat(newest(">=18 <=22")).isEqualTo("22.23.3");
        assertThat(newest(">20 <22")).isEqualTo("none");
        assertThat(newest(">20.9.0 <22")).isEqualTo("20.19.5");
        assertThat(newest("18 || 20")).isEqualTo("20.19.5");
        assertThat(newest("^18.0.0 || ^20.0.0")).isEqualTo("20.19.5");
        assertThat(newest("20.9 - 22.0")).isEqualTo("22.0.0");
        assertThat(newest("*")).isEqualTo("26.10.0");
        assertThat(newest("")).isEqualTo("26.10.0");
        assertThat(newest(">=99")).isEqualTo("none");
    }

    @Test
    void caretBelowOneKeepsTheLeftmostNonZeroPart() {
        List<Semver.Version> v = Stream.of("0.2.3", "0.2.9", "0.3.0", "0.0.3", "0.0.4").map(s -> Semver.Version.parse(s).orElseThrow()).toList();
        assertThat(Semver.range("^0.2.3").newest(v)).map(Object::toString).contains("0.2.9");
        assertThat(Semver.range("^0.0.3").newest(v)).map(Object::toString).contains("0.0.3");
    }

    @Test
    void prereleasesAreNotVersionsToPick() {
        assertThat(Semver.Version.parse("23.0.0-rc.1")).isEmpty();
        assertThat(Semver.Version.parse("v20.1.0")).map(Object::toString).contains("20.1.0");
    }

    @Test
    void whatIsNotARangeIsRefusedNamingIt() {
        assertThatThrownBy(() -> Semver.range("twenty")).hasMessageContaining("\"twenty\" is not a version range");
        assertThatThrownBy(() -> Semver.range(">=18 && <20")).hasMessageContaining("\"&&\"");
    }
}
