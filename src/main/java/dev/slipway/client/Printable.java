package dev.slipway.client;

/**
 * Text from the server (an app's log lines above all) made safe for a terminal: control characters
 * (C0 but tab, DEL, C1) and the bidirectional overrides are shown as {@code \xHH} / {@code \\uHHHH}, so that
 * an escape sequence can neither write the viewer's clipboard (OSC 52), retitle the window, nor erase a
 * line to fake another.
 */
final class Printable {
    private Printable() {}

    static String of(String s) {
        if (s == null) return null;
        StringBuilder out = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            String shown = shown(c);
            if (shown == null) {
                if (out != null) out.append(c);
                continue;
            }
            if (out == null) out = new StringBuilder(s.length() + 16).append(s, 0, i);
            out.append(shown);
        }
        return out == null ? s : out.toString();
    }

    private static String shown(char c) {
        if (c == '\t') return null;
        if (c < 0x20 || c == 0x7f) return String.format("\\x%02x", (int) c);
        if (c >= 0x80 && c <= 0x9f) return String.format("\\u%04x", (int) c);
        if ((c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)) return String.format("\\u%04x", (int) c);
        return null;
    }
}
