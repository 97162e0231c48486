package dev.slipway.core;

/**
 * Control characters shown, not sent: C0 (but tab), DEL and C1 as {@code \xHH} / {@code \\uHHHH}, and the
 * bidirectional overrides as {@code \\uHHHH}, so that no text from an app or a build drives a terminal, a log
 * viewer or the dashboard. The server's log store and the client's terminal output both show text so.
 */
public final class ControlCharacters {
    private ControlCharacters() {}

    /** Every control character shown, none removed; the same string when there is none. */
    public static String escape(String text) {
        if (text == null || !any(text)) return text;
        StringBuilder out = new StringBuilder(text.length() + 8);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            String s = shown(c);
            if (s == null) out.append(c); else out.append(s);
        }
        return out.toString();
    }

    /** Whether {@code text} holds a character {@link #escape} shows. */
    public static boolean any(String text) {
        for (int i = 0; i < text.length(); i++) if (shown(text.charAt(i)) != null) return true;
        return false;
    }

    private static String shown(char c) {
        if (c == '\t') return null;
        if (c < 0x20 || c == 0x7f) return String.format("\\x%02x", (int) c);
        if (c >= 0x80 && c <= 0x9f) return String.format("\\u%04x", (int) c);
        if ((c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)) return String.format("\\u%04x", (int) c);
        return null;
    }
}
