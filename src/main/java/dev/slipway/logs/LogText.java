package dev.slipway.logs;

import java.util.regex.Pattern;

/**
 * An app's or a build's output line as it is stored: escape sequences (CSI such as colours and erase-line,
 * OSC such as a clipboard write or a window title, and the rest) are removed, and any other control
 * character (a bare CR, a backspace, C1 controls, bidirectional overrides) is shown as {@code \xHH} or
 * {@code \\uHHHH}, so that no viewer, terminal or dashboard is ever driven by a log line.
 */
public final class LogText {
    private static final Pattern SEQUENCES = Pattern.compile(
            "(?:\\u001b\\]|\\u009d)[^\\u0007\\u001b\\u009c]*(?:\\u0007|\\u001b\\\\|\\u009c)?" // OSC … BEL/ST
                    + "|(?:\\u001b\\[|\\u009b)[0-?]*[ -/]*[@-~]"                              // CSI
                    + "|\\u001b[PX^_][^\\u001b\\u009c]*(?:\\u001b\\\\|\\u009c)?"              // DCS, SOS, PM, APC
                    + "|\\u001b[ -/]*[0-~]");                                                 // other ESC sequences

    private LogText() {}

    public static String clean(String line) {
        if (line == null || plain(line)) return line;
        return escapeControls(SEQUENCES.matcher(line).replaceAll(""));
    }

    /** Every control character shown, none removed: for text already stored, on its way to a terminal. */
    public static String escapeControls(String text) {
        if (text == null || plain(text)) return text;
        StringBuilder out = new StringBuilder(text.length() + 8);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            String s = shown(c);
            if (s == null) out.append(c); else out.append(s);
        }
        return out.toString();
    }

    private static boolean plain(String text) {
        for (int i = 0; i < text.length(); i++) if (shown(text.charAt(i)) != null) return false;
        return true;
    }

    private static String shown(char c) {
        if (c == '\t') return null;
        if (c < 0x20 || c == 0x7f) return String.format("\\x%02x", (int) c);
        if (c >= 0x80 && c <= 0x9f) return String.format("\\u%04x", (int) c);
        if ((c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)) return String.format("\\u%04x", (int) c);
        return null;
    }
}
