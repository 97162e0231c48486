package dev.slipway.client.output;

import dev.slipway.core.ControlCharacters;

/**
 * Text from the server (an app's log lines above all) made safe for a terminal: control characters
 * (C0 but tab, DEL, C1) and the bidirectional overrides are shown as {@code \xHH} / {@code \\uHHHH}, so that
 * an escape sequence can neither write the viewer's clipboard (OSC 52), retitle the window, nor erase a
 * line to fake another ({@link ControlCharacters}). The server already stores output so; this also covers
 * lines stored before it did, and any other text of the server's.
 */
public final class Printable {
    private Printable() {}

    public static String of(String s) {
        return ControlCharacters.escape(s);
    }
}
