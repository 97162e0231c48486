package dev.slipway.client;

import dev.slipway.client.api.JsonTrees;
import dev.slipway.client.logs.LogLines;
import dev.slipway.client.output.Printable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** An app's hostile log lines, as the client prints them: no byte of an escape sequence reaches the terminal. */
class PrintableTest {
    @Test
    void escapeSequencesAreShownNotSent() {
        String clipboard = "\u001b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\u0007";
        String title = "\u001b]0;owned\u001b\\";
        String fakeLive = "building\u001b[2K\rsuccess Deployment is live";
        String c1 = "\u009b31m red via C1 CSI";
        String bidi = "invoice\u202egnp.exe";
        for (String hostile : new String[] {clipboard, title, fakeLive, c1, bidi}) {
            String shown = Printable.of(hostile);
            assertThat(shown.chars()).as(shown).noneMatch(c -> c < 0x20 && c != '\t' || c == 0x7f || c >= 0x80 && c <= 0x9f
                    || c >= 0x202a && c <= 0x202e || c >= 0x2066 && c <= 0x2069);
        }
        assertThat(Printable.of(clipboard)).isEqualTo("\\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\\x07");
        assertThat(Printable.of(fakeLive)).isEqualTo("building\\x1b[2K\\x0dsuccess Deployment is live");
        assertThat(Printable.of(c1)).startsWith("\\u009b31m");
        assertThat(Printable.of(bidi)).isEqualTo("invoice\\u202egnp.exe");
    }

    @Test
    void ordinaryTextIsUntouched() {
        String plain = "GET / 200 12 ms\tüñí 日本 emoji \uD83D\uDE80";
        assertThat(Printable.of(plain)).isSameAs(plain);
        assertThat(Printable.of(null)).isNull();
    }

    @Test
    void aLogLineIsFormattedSafely() throws Exception {
        var entry = JsonTrees.MAPPER.readTree("{\"timestamp\":\"2026-11-22T10:00:00Z\",\"level\":\"info\",\"message\":\"x\\u001b[2K\\rsuccess Deployment is live\"}");
        assertThat(LogLines.format(entry)).isEqualTo("2026-11-22T10:00:00Z info    x\\x1b[2K\\x0dsuccess Deployment is live");
    }
}
