package dev.slipway.runtime;

import dev.slipway.logs.Masker;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Set;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

class BackoffTest {
    @Test
    void doublesFromOneSecondUpToOneMinute() {
        var delays = IntStream.rangeClosed(1, 9)
                .mapToObj(n -> Backoff.delay(n, Duration.ofSeconds(1), Duration.ofSeconds(60)).toSeconds()).toList();
        assertThat(delays).containsExactly(1L, 2L, 4L, 8L, 16L, 32L, 60L, 60L, 60L);
        assertThat(Backoff.delay(10_000, Duration.ofSeconds(1), Duration.ofSeconds(60))).isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void secretsAreMaskedLongestFirstAndTinyValuesAreLeftAlone() {
        var mask = new Masker(Set.of("abcdef", "abcdefgh", "on", "abcd"));
        assertThat(mask.mask("x abcdefgh y abcdef z on abcd")).isEqualTo("x **** y **** z on abcd");
    }
}
