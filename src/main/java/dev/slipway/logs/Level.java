package dev.slipway.logs;

import java.util.Locale;

/** Log entry levels (DESIGN §3 Logs). */
public enum Level {
    INFO, SUCCESS, WARNING, ERROR;

    public String label() { return name().toLowerCase(Locale.ROOT); }
}
