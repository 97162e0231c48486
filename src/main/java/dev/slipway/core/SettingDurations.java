package dev.slipway.core;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/** How a duration setting is written: seconds ({@code 30}), milliseconds ({@code 200ms}) or ISO-8601 ({@code PT5M}). */
public final class SettingDurations {
    private SettingDurations() {}

    /** A positive duration; anything else is an {@link IllegalArgumentException} that names {@code name}. */
    public static Duration parse(String name, String value) {
        String p = value.strip();
        try {
            Duration d = p.endsWith("ms") ? Duration.ofMillis(Long.parseLong(p.substring(0, p.length() - 2)))
                    : p.toUpperCase(Locale.ROOT).startsWith("P") ? Duration.parse(p) : Duration.ofSeconds(Long.parseLong(p));
            if (d.isNegative() || d.isZero()) throw new IllegalArgumentException();
            return d;
        } catch (IllegalArgumentException | DateTimeParseException e) {
            throw new IllegalArgumentException(name + ": '" + p + "' is not a positive duration (seconds, 200ms, or ISO-8601 like PT5M)");
        }
    }
}
