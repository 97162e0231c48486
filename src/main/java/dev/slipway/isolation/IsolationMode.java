package dev.slipway.isolation;

import java.util.Locale;

/** {@code --isolation}: sandbox every app and build, or run them as plain processes of the server. */
public enum IsolationMode {
    /** Required: the server refuses to start unless the sandbox's start check runs a cell. */
    SANDBOX,
    /** The operator's choice: apps and builds run as the server's user, unconfined, for every account. */
    NONE,
    /**
     * The default: SANDBOX when its start check runs a cell; else apps run unconfined for the store's first
     * account only, other accounts are refused, and the server says so everywhere.
     */
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
