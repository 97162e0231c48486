package dev.slipway.build.steps;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class FailureCauseTest {
    @Test
    void causeLinesAreBoundedWhateverTheOutput() {
        FailureCause cause = new FailureCause();
        for (int i = 0; i < 10_000; i++) cause.offer("npm error something " + i + " " + "x".repeat(1000));
        assertThat(cause.lines()).hasSize(FailureCause.MAX).allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(301));
    }
}
