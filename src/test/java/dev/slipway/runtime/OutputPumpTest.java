package dev.slipway.runtime;

import dev.slipway.logs.Masker;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/** An app that prints a secret right where its line is cut at 16 KiB gets it masked, not split in two. */
class OutputPumpTest {
    @Test
    void aSecretPrintedInHalvesOnTwoLinesIsMaskedInBoth() throws Exception {
        String secret = "sk-live-0123456789abcdef";
        String text = "token " + secret.substring(0, 9) + "\n" + secret.substring(9) + " rest\nlast\n";
        List<String> lines = new CopyOnWriteArrayList<>();
        Thread pump = OutputPump.start("test", new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)),
                (level, message) -> lines.add(message), new Masker(List.of(secret)), line -> { });
        pump.join();
        assertThat(lines).containsExactly("token ****", "**** rest", "last");

        // split after its first character: that line goes out at once (nothing to hold), the rest is masked
        String early = "token " + secret.charAt(0) + "\n" + secret.substring(1) + " rest\nlast\n";
        List<String> more = new CopyOnWriteArrayList<>();
        Thread second = OutputPump.start("test", new ByteArrayInputStream(early.getBytes(StandardCharsets.UTF_8)),
                (level, message) -> more.add(message), new Masker(List.of(secret)), line -> { });
        second.join();
        assertThat(more).containsExactly("token s", "**** rest", "last");
    }

    @Test
    void escapeSequencesNeverReachTheLog() throws Exception {
        String text = "\u001b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\u0007copied\nbuilding\u001b[2K\rsuccess Deployment is live\n";
        List<String> lines = new CopyOnWriteArrayList<>();
        Thread pump = OutputPump.start("test", new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)),
                (level, message) -> lines.add(message), new Masker(List.of()), line -> { });
        pump.join();
        assertThat(lines).containsExactly("copied", "building\\x0dsuccess Deployment is live");
    }

    @Test
    void aSecretAtTheLineCutIsMaskedWhole() throws Exception {
        String secret = "sk-live-0123456789abcdef";
        for (int offset = 1; offset < secret.length(); offset++) {
            String text = "x".repeat(OutputPump.MAX_LINE - offset) + secret + " and the rest\nnext line\n";
            List<String> lines = new CopyOnWriteArrayList<>();
            Thread pump = OutputPump.start("test", new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)),
                    (level, message) -> lines.add(message), new Masker(List.of(secret)), line -> { });
            pump.join();
            String all = String.join("", lines);
            assertThat(all).as("offset " + offset).doesNotContain(secret).contains("****")
                    .doesNotContain(secret.substring(0, 6)).doesNotContain(secret.substring(secret.length() - 6));
            assertThat(lines).as("offset " + offset).allMatch(l -> l.length() <= OutputPump.MAX_LINE).endsWith("next line");
        }
    }
}
