package dev.slipway.client.runs;

import dev.slipway.testing.Await;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** What a waiting command shows: a redrawn status line on a terminal, timestamped lines per change elsewhere. */
class ProgressTest {
    @Test
    void plainLinesAreTimestampedAndOnlyForChanges() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (Progress p = new Progress.Plain(new PrintStream(bytes, true, StandardCharsets.UTF_8))) {
            p.status("deployment dep_1 queued");
            p.status("deployment dep_1 queued");
            p.status("deployment dep_1 building");
        }
        String[] lines = bytes.toString(StandardCharsets.UTF_8).split("\n");
        assertThat(lines).hasSize(2);
        assertThat(lines[0]).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ deployment dep_1 queued");
        assertThat(lines[1]).endsWith("Z deployment dep_1 building");
    }

    @Test
    void theLiveLineIsRedrawnInPlaceAndClearedAtTheEnd() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        Progress p = new Progress.Live(err);
        p.status("deployment dep_1 building");
        Await.until(Duration.ofSeconds(5), "the status line to be drawn",
                () -> bytes.toString(StandardCharsets.UTF_8).contains("deployment dep_1 building"));
        p.close();
        String shown = bytes.toString(StandardCharsets.UTF_8);
        assertThat(shown).doesNotContain("\n").startsWith("\r\033[2K").endsWith("\r\033[2K");
        assertThat(shown).containsPattern("\r\033\\[2K. deployment dep_1 building  \\d+s");
    }
}
