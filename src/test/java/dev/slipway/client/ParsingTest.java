package dev.slipway.client;

import dev.slipway.client.context.Durations;
import dev.slipway.client.context.UsageException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The client's --timeout values, and its completion script. */
class ParsingTest {
    @Test
    void durations() {
        assertThat(Durations.parse("--timeout", "90")).isEqualTo(Duration.ofSeconds(90));
        assertThat(Durations.parse("--timeout", "2s")).isEqualTo(Duration.ofSeconds(2));
        assertThat(Durations.parse("--timeout", "15m")).isEqualTo(Duration.ofMinutes(15));
        assertThat(Durations.parse("--timeout", "1h30m")).isEqualTo(Duration.ofMinutes(90));
        assertThat(Durations.parse("--timeout", "PT20M")).isEqualTo(Duration.ofMinutes(20));
        for (String bad : List.of("", "0", "0s", "-5s", "5x", "m", "1.5m", "PT-1M")) {
            assertThatThrownBy(() -> Durations.parse("--timeout", bad)).as(bad).isInstanceOf(UsageException.class);
        }
        assertThat(Durations.format(Duration.ofSeconds(125))).isEqualTo("2m5s");
        assertThat(Durations.format(Duration.ofMinutes(15))).isEqualTo("15m");
    }

    @Test
    void completionPrintsAScriptForBashAndZshNamingEveryCommand() {
        Cli.Result r = Cli.run(java.util.Map.of(), "completion");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.out()).contains("complete -F").contains("deploy").contains("rollback").contains("--project");
    }
}
