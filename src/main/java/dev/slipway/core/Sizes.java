package dev.slipway.core;

import java.time.Duration;
import java.util.Locale;

/** Sizes and durations as people read them in messages. */
public final class Sizes {
    private Sizes() {}

    public static String human(long bytes) {
        if (bytes < 1024) return bytes + " bytes";
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double value = bytes;
        int unit = -1;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return (value == Math.rint(value) ? String.format(Locale.ROOT, "%d", (long) value)
                : String.format(Locale.ROOT, "%.1f", value)) + " " + units[unit];
    }

    public static String duration(Duration d) {
        if (d.toMillis() < 1000) return d.toMillis() + " ms";
        if (d.toSeconds() < 60 || d.toSeconds() % 60 != 0) return d.toSeconds() + " s";
        return d.toMinutes() + " min";
    }
}
