package dev.slipway.isolation;

import java.util.Locale;

/** {@code --isolation}: sandbox every app and build, or run them as plain processes of the server. */
public enum IsolationMode {
    /** Required: the server refuses to start without the sandbox tools. */
    SANDBOX,
    /** Apps and builds run as the server's user, unconfined (a single-team machine, or a bare one). */
    NONE,
    /** The default: SANDBOX when the tools are present, else NONE with a warning everywhere. */
    AUTO;

    public static IsolationMode parse(String value) {
        if (value == null || value.isBlank()) return AUTO;
        return switch (value.strip().toLowerCase(Locale.ROOT)) {
            case "sandbox" -> SANDBOX;
            case "none" -> NONE;
            case "auto" -> AUTO;
            default -> throw new IllegalArgumentException("--isolation must be sandbox, none or auto (got '" + value + "')");
        };
    }
}
