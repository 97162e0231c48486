package dev.slipway.disk;

import dev.slipway.core.Env;
import dev.slipway.core.Setting;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The space kept free on the data dir's disk for the store: below it, new builds, uploads and deploys are refused.
 *
 * @param bytes   a fixed reserve; 0: a share of the disk ({@code percent}, or the default's); -1: no reserve
 * @param percent a share of the disk's size; 0 with {@code bytes}
 */
public record DiskSettings(long bytes, double percent) {
    public static final Setting RESERVE = Setting.env("SLIPWAY_DISK_RESERVE", "5 % of the disk, at most `1GiB`",
            "space kept free on the data dir's disk for the store (`512MiB`, `2GB`, `10%`): below it new builds, uploads "
                    + "and deploys are refused with 507 `insufficient_storage`, `/readyz` names `disk`, and build caches, "
                    + "then the builds no deployment needs, are evicted first; `0` turns the check off");
    static final long DEFAULT_CAP = 1L << 30;
    static final double DEFAULT_PERCENT = 5;
    public static final DiskSettings DEFAULTS = new DiskSettings(0, 0);
    private static final Pattern SIZE = Pattern.compile("^(\\d+(?:\\.\\d+)?)\\s*(%|b|kb|kib|mb|mib|gb|gib|tb|tib)?$");

    /** The reserve on a disk of {@code total} bytes; 0 when the check is off. */
    public long reserveOf(long total) {
        if (bytes < 0) return 0;
        if (bytes > 0) return bytes;
        if (percent > 0) return (long) (total * percent / 100);
        return Math.min(DEFAULT_CAP, (long) (total * DEFAULT_PERCENT / 100));
    }

    public static DiskSettings fromEnv(Env env) {
        return env.parsed(RESERVE, "a size such as 512MiB or 2GB, a share such as 10%, or 0", DiskSettings::parse, DEFAULTS);
    }

    /** {@code 0}: no reserve (the check is off). */
    public static DiskSettings parse(String text) {
        Matcher m = SIZE.matcher(text.strip().toLowerCase(Locale.ROOT));
        if (!m.matches()) throw new IllegalArgumentException("not a size: " + text);
        double n = Double.parseDouble(m.group(1));
        String unit = m.group(2) == null ? "b" : m.group(2);
        if (unit.equals("%")) {
            if (n <= 0 || n >= 100) throw new IllegalArgumentException("a share must be between 0 and 100 %: " + text);
            return new DiskSettings(0, n);
        }
        long factor = switch (unit) {
            case "kb" -> 1_000L; case "kib" -> 1L << 10; case "mb" -> 1_000_000L; case "mib" -> 1L << 20;
            case "gb" -> 1_000_000_000L; case "gib" -> 1L << 30; case "tb" -> 1_000_000_000_000L; case "tib" -> 1L << 40;
            default -> 1L;
        };
        long bytes = (long) (n * factor);
        return bytes == 0 ? OFF : new DiskSettings(bytes, 0);
    }

    /** No reserve: the check is off. */
    public static final DiskSettings OFF = new DiskSettings(-1, 0);
}
