package dev.slipway.core;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The one reader of the process environment for settings. Every getter takes a {@link Setting}; an unset or
 * blank variable gives the fallback, and a bad value is an {@link IllegalArgumentException} that names the
 * variable and what it allows.
 */
public final class Env {
    private final Map<String, String> variables;

    private Env(Map<String, String> variables) {
        this.variables = Map.copyOf(variables);
    }

    /** The process's environment. */
    public static Env system() {
        return new Env(System.getenv());
    }

    public static Env of(Map<String, String> variables) {
        return new Env(variables);
    }

    /** The value without surrounding blanks; empty when unset or blank. */
    public Optional<String> text(Setting s) {
        String v = variables.get(s.variable());
        return v == null || v.isBlank() ? Optional.empty() : Optional.of(v.strip());
    }

    public String text(Setting s, String fallback) {
        return text(s).orElse(fallback);
    }

    public boolean isSet(Setting s) {
        return text(s).isPresent();
    }

    /** A whole number from {@code min} to {@code max}. */
    public long number(Setting s, long min, long max, long fallback) {
        Optional<String> v = text(s);
        if (v.isEmpty()) return fallback;
        try {
            long n = Long.parseLong(v.get());
            if (n < min || n > max) throw new NumberFormatException();
            return n;
        } catch (NumberFormatException e) {
            String range = max == Long.MAX_VALUE || max == Integer.MAX_VALUE ? "of at least " + min : "from " + min + " to " + max;
            throw bad(s, "a whole number " + range, v.get());
        }
    }

    /** A whole number from {@code min} to {@code max}, within an int. */
    public int integer(Setting s, int min, int max, int fallback) {
        return (int) number(s, min, max, fallback);
    }

    /** A positive duration: seconds ({@code 30}), milliseconds ({@code 200ms}) or ISO-8601 ({@code PT5M}). */
    public Duration duration(Setting s, Duration fallback) {
        return text(s).map(v -> SettingDurations.parse(s.variable(), v)).orElse(fallback);
    }

    /** {@code true} or {@code false}, in any case. */
    public boolean bool(Setting s, boolean fallback) {
        return text(s).map(v -> switch (v.toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw bad(s, "true or false", v);
        }).orElse(fallback);
    }

    /** Comma-separated items, each without surrounding blanks; empty items are dropped. */
    public List<String> list(Setting s, List<String> fallback) {
        return text(s).map(v -> Arrays.stream(v.split(",")).map(String::strip).filter(p -> !p.isEmpty()).toList())
                .orElse(fallback);
    }

    /**
     * The value as {@code parse} reads it; an {@link IllegalArgumentException} of {@code parse} becomes one that
     * names the variable and says it must be {@code allowed}.
     */
    public <T> T parsed(Setting s, String allowed, Function<String, T> parse, T fallback) {
        Optional<String> v = text(s);
        if (v.isEmpty()) return fallback;
        try {
            return parse.apply(v.get());
        } catch (IllegalArgumentException e) {
            throw bad(s, allowed, v.get());
        }
    }

    private static IllegalArgumentException bad(Setting s, String allowed, String value) {
        return new IllegalArgumentException(s.variable() + " must be " + allowed + ", got '" + value + "'");
    }
}
