package dev.slipway.client.context;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code --timeout} values: {@code 90} (seconds), {@code 2s}, {@code 15m}, {@code 1h30m}, or ISO-8601 {@code PT20M}. */
public final class Durations {
    private static final Pattern UNITS = Pattern.compile("(?:(\\d+)h)?(?:(\\d+)m)?(?:(\\d+)s)?");

    private Durations() {}

    public static Duration parse(String option, String raw) {
        String s = raw == null ? "" : raw.trim().toLowerCase(Locale.ROOT);
        Duration d = null;
        if (s.matches("\\d{1,9}")) {
            d = Duration.ofSeconds(Long.parseLong(s));
        } else if (s.startsWith("pt")) {
            try {
                d = Duration.parse(s.toUpperCase(Locale.ROOT));
            } catch (DateTimeParseException ignored) {
                // falls through to the error
            }
        } else {
            Matcher m = UNITS.matcher(s);
            if (!s.isEmpty() && m.matches()) {
                try {
                    d = Duration.ofHours(number(m.group(1))).plusMinutes(number(m.group(2))).plusSeconds(number(m.group(3)));
                } catch (ArithmeticException | NumberFormatException ignored) {
                    // falls through to the error
                }
            }
        }
        if (d == null || d.isNegative() || d.isZero()) {
            throw new UsageException(option + " must be a positive duration like 90s, 15m or 1h30m, not '" + raw + "'");
        }
        return d;
    }

    private static long number(String digits) {
        return digits == null ? 0 : Long.parseLong(digits);
    }

    public static String format(Duration d) {
        long s = d.toSeconds();
        if (s < 60) return s + "s";
        if (s < 3600) return (s / 60) + "m" + (s % 60 == 0 ? "" : (s % 60) + "s");
        return (s / 3600) + "h" + (s % 3600 / 60 == 0 ? "" : (s % 3600 / 60) + "m");
    }
}
