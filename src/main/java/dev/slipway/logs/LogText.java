package dev.slipway.logs;

import dev.slipway.core.ControlCharacters;

import java.util.regex.Pattern;

/**
 * An app's or a build's output line as it is stored: escape sequences (CSI such as colours and erase-line,
 * OSC such as a clipboard write or a window title, and the rest) are removed, and any other control
 * character (a bare CR, a backspace, C1 controls, bidirectional overrides) is shown as {@code \xHH} or
 * {@code \\uHHHH} ({@link ControlCharacters}), so that no viewer, terminal or dashboard is ever driven by a log line.
 */
public final class LogText {
    private static final Pattern SEQUENCES = Pattern.compile(
            "(?:\\u001b\\]|\\u009d)[^\\u0007\\u001b\\u009c]*(?:\\u0007|\\u001b\\\\|\\u009c)?" // OSC … BEL/ST
                    + "|(?:\\u001b\\[|\\u009b)[0-?]*[ -/]*[@-~]"                              // CSI
                    + "|\\u001b[PX^_][^\\u001b\\u009c]*(?:\\u001b\\\\|\\u009c)?"              // DCS, SOS, PM, APC
                    + "|\\u001b[ -/]*[0-~]");                                                 // other ESC sequences

    private LogText() {}

    public static String clean(String line) {
        if (line == null || !ControlCharacters.any(line)) return line;
        return ControlCharacters.escape(SEQUENCES.matcher(line).replaceAll(""));
    }
}
